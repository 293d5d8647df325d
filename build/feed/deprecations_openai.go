package feed

import (
	"fmt"

	"github.com/aistatus/aistatus/api"
)

// openAIDeprecations reads OpenAI's deprecations page as Markdown
// (developers.openai.com/api/docs/deprecations.md): one section per
// announcement, each with a table whose first column is "Shutdown date"
// and whose second names the models ("Model / system", "Model snapshot",
// "Deprecated model", …), a snapshot and its aliases in one cell
// ("`o1-2024-12-17` \| `o1`"): each id of the cell is shut down that day.
// A table of another shape (the fine-tuning timeline's "Date | Update") is
// no model's retirement; a row whose date is not a day ("at earliest
// 2024-06-13") or whose cell is not only ids is not read.
type openAIDeprecations struct{}

func (openAIDeprecations) Accept() string { return markdownAccept }

func (openAIDeprecations) ParseDeprecations(doc []byte) ([]Deprecation, error) {
	var set deprecationSet
	tables := 0
	for _, t := range markdownTables(doc) {
		if len(t.header) < 2 || t.header[0] != "shutdown date" {
			continue
		}
		tables++
		for _, row := range t.rows {
			date, ok := pageDate(row[0])
			if !ok {
				continue
			}
			for _, id := range modelCell(row[1]) {
				if err := set.add(Deprecation{Model: id, Date: date}); err != nil {
					return nil, err
				}
			}
		}
	}
	switch {
	case tables == 0:
		return nil, fmt.Errorf("no table with a %q column: not OpenAI's deprecations page", "Shutdown date")
	case len(set.out) == 0:
		return nil, failure(api.FailureEmpty, "the shutdown tables name no model: the page is cut, or lists nothing")
	}
	return set.out, nil
}
