package main

import (
	"os"
	"slices"

	"github.com/aistatus/aistatus/build"
	"github.com/aistatus/aistatus/catalog"
	"github.com/rs/zerolog"
)

// completionKeys reads, for every service of cat with measured
// completions, the key in its environment variable (OPENAI_API_KEY, …),
// through lookup (os.LookupEnv). It logs which variables were found, by
// name only: the values go to build.Completions and nowhere else.
func completionKeys(cat catalog.Catalog, lookup func(string) (string, bool), log zerolog.Logger) map[string]string {
	keys := map[string]string{}
	var on []string
	for _, svc := range cat.Services {
		if svc.Completion == nil {
			continue
		}
		if v, ok := lookup(svc.Completion.KeyEnv); ok && v != "" {
			keys[svc.Completion.KeyEnv] = v
			on = append(on, svc.Slug)
		}
	}
	if len(on) > 0 {
		slices.Sort(on)
		log.Info().Strs("services", on).Msg("measured completions on: a key is set for these services")
	}
	return keys
}

// completions turns the flags and the environment into build.Completions.
func (o *buildOptions) completions(cat catalog.Catalog, log zerolog.Logger) build.Completions {
	return build.Completions{Keys: completionKeys(cat, os.LookupEnv, log), Every: o.completionEvery}
}
