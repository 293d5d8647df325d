package main

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/aistatus/aistatus/probe"
	"github.com/aistatus/aistatus/serve"
	"github.com/aistatus/aistatus/snapshot"
	"github.com/rs/zerolog"
	"github.com/spf13/cobra"
)

func newCheckCmd(g *globals) *cobra.Command {
	var (
		dir, catalog string
		asJSON       bool
	)
	cmd := &cobra.Command{
		Use:   "check QUERY",
		Short: "Tell whether a service is up, from a snapshot folder (name, domain or URL)",
		Example: `  aistatus check openai
  aistatus check https://api.anthropic.com/v1/messages`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cat, err := snapshot.LoadCatalog(catalog)
			if err != nil {
				return err
			}
			snap, err := serve.Load(dir)
			if err != nil {
				return fmt.Errorf("%w (run 'aistatus build --out %s' first)", err, dir)
			}
			srv := serve.New(serve.Options{Dir: dir, Catalog: cat, Log: zerolog.Nop(), Now: time.Now, Client: probe.NewClient()})
			doc := srv.Check(snap, args[0])
			if asJSON {
				enc := json.NewEncoder(g.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(doc)
			}
			fmt.Fprintf(g.stdout, "%s %s\n", doc.Verdict.Emoji, doc.Verdict.Headline)
			if doc.LatencyMs != nil {
				fmt.Fprintf(g.stdout, "   API answered in %.0f ms\n", *doc.LatencyMs)
			}
			if len(doc.Verdict.Suggestions) > 0 {
				fmt.Fprintf(g.stdout, "   Did you mean: %v?\n", doc.Verdict.Suggestions)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "public", "snapshot folder to read")
	cmd.Flags().StringVar(&catalog, "catalog", "", "catalog JSON file (default: the embedded one)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the /check response as JSON")
	return cmd
}
