package notify

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// Config is a --notify-config file: the receivers of changes, each
// with its kind and filter (docs/operations.md).
type Config struct {
	Destinations []ConfigDestination `json:"destinations"`
}

// ConfigDestination is one receiver as the file gives it.
type ConfigDestination struct {
	// URL is the receiver; URLEnv instead names the environment variable
	// that holds it, so that the file holds no secret. One of the two.
	URL    string `json:"url,omitempty"`
	URLEnv string `json:"urlEnv,omitempty"`
	// Kind is the payload format; absent, it is detected from the URL.
	Kind Kind `json:"kind,omitempty"`
	Filter
}

// ParseConfig reads a --notify-config file. Every problem is
// reported at once, each naming the destination by its place in the list
// and never its URL; subjects are checked against cat, so that a misspelt
// slug is an error rather than a filter that never matches. getenv reads
// the URLEnv variables.
func ParseConfig(r io.Reader, cat catalog.Catalog, getenv func(string) string) ([]Destination, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var cfg Config
	if err := dec.Decode(&cfg); err != nil {
		return nil, fmt.Errorf("notify config: %w", err)
	}
	if dec.More() {
		return nil, errors.New("notify config: more than one JSON value")
	}
	if len(cfg.Destinations) == 0 {
		return nil, errors.New(`notify config: no "destinations"`)
	}
	services, surfaces := map[string]bool{}, map[string]bool{}
	for _, svc := range cat.Services {
		services[svc.Slug] = true
		for _, sf := range svc.Surfaces {
			surfaces[svc.Slug+"/"+string(sf.ID)] = true
		}
	}
	var errs []error
	var dests []Destination
	for i, cd := range cfg.Destinations {
		bad := func(format string, args ...any) {
			errs = append(errs, fmt.Errorf("notify config: destinations[%d]: "+format, append([]any{i}, args...)...))
		}
		u := cd.URL
		switch {
		case (u == "") == (cd.URLEnv == ""):
			bad(`give one of "url" and "urlEnv"`)
			continue
		case cd.URLEnv != "":
			if u = getenv(cd.URLEnv); u == "" {
				bad("the environment variable %s, its urlEnv, is not set", cd.URLEnv)
				continue
			}
		}
		d := Destination{URL: u, Kind: cd.Kind, Filter: cd.Filter}
		if d.Kind == "" {
			d.Kind = DetectKind(u)
		}
		if err := checkDestination(d); err != nil {
			bad("%s: %v", redactURL(u), err)
		}
		for _, s := range cd.Services {
			if !services[s] {
				bad("services: %q is no tracked service", s)
			}
		}
		for _, s := range cd.Surfaces {
			if !surfaces[s] {
				bad(`surfaces: %q is no surface of a tracked service ("<slug>/<surface>", such as "anthropic/app")`, s)
			}
		}
		// The watched models change by themselves (those a gateway lists
		// come and go), so a model is checked for its shape, not against
		// today's list.
		for _, m := range cd.Models {
			if !catalog.ValidModelID(m) {
				bad("models: %q is not a model id (author/model, as /api/v1/models lists them)", m)
			}
		}
		if s := cd.MinStatus; s != "" && (!s.Valid() || s == api.Unknown) {
			bad("minStatus: %q is not one of operational, maintenance, degraded, partial_outage, major_outage", s)
		}
		if s := cd.MinSeverity; s != "" && !s.Valid() {
			bad("minSeverity: %q is not one of minor, major, critical", s)
		}
		dests = append(dests, d)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return dests, nil
}

// checkDestination says what is wrong with d, if anything, without naming
// its URL.
func checkDestination(d Destination) error {
	p, err := url.Parse(d.URL)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return errors.New("not an absolute http(s) URL")
	}
	if !d.Kind.Valid() {
		var kinds []string
		for _, k := range Kinds {
			kinds = append(kinds, string(k))
		}
		return fmt.Errorf("kind %q is not one of %s", d.Kind, strings.Join(kinds, ", "))
	}
	if d.Kind == Ntfy {
		if _, _, err := ntfyRoot(d.URL); err != nil {
			return err
		}
	}
	return nil
}

// NeedsSecret reports whether any of dests, or of urls, is a
// Standard Webhook, which is signed.
func NeedsSecret(urls []string, dests []Destination) bool {
	for _, u := range urls {
		if DetectKind(u) == Webhook {
			return true
		}
	}
	return slices.ContainsFunc(dests, func(d Destination) bool {
		return d.Kind == Webhook || d.Kind == "" && DetectKind(d.URL) == Webhook
	})
}
