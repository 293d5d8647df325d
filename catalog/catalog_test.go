package catalog

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestDefaultCatalog(t *testing.T) {
	t.Parallel()
	c, err := Default()
	if err != nil {
		t.Fatalf("Default: %v", err)
	}

	// The number of services is published in prose; the catalog is where
	// it comes from, and a service added or removed shows here. The
	// README's opening states it; the other documents may, but each
	// mention is one more place to change, so they say "every service".
	t.Run("the README and the docs state the catalog's number of services", func(t *testing.T) {
		// "26 services", "26 AI services", "26 status pages", "all 26".
		stated := regexp.MustCompile(`\b(?:(\d+) (?:AI )?(?:services|status pages)|[Aa]ll (\d+))\b`)
		for _, tc := range []struct {
			glob string
			must bool // states the number at least once
			none bool // states no number: the build writes the catalog's in
		}{
			{glob: "README.md", must: true},
			{glob: "CONTRIBUTING.md"},
			{glob: "docs/*.md"},
			{glob: "build/openapi.json", none: true}, // build.OpenAPI
		} {
			paths, err := filepath.Glob(filepath.Join("..", filepath.FromSlash(tc.glob)))
			if err != nil || len(paths) == 0 {
				t.Fatalf("%s: %v, %d files", tc.glob, err, len(paths))
			}
			for _, path := range paths {
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				found := stated.FindAllSubmatch(data, -1)
				if tc.must && len(found) == 0 {
					t.Errorf("%s states no number of services", path)
				}
				for _, m := range found {
					switch n := string(m[1]) + string(m[2]); {
					case tc.none:
						t.Errorf("%s says %q: the build writes the catalog's number there", path, m[0])
					case n != strconv.Itoa(len(c.Services)):
						t.Errorf("%s says %q; the catalog has %d services", path, m[0], len(c.Services))
					}
				}
			}
		}
	})

	t.Run("slugs are unique and well formed", func(t *testing.T) {
		seen := map[string]bool{}
		for _, s := range c.Services {
			if seen[s.Slug] {
				t.Errorf("duplicate slug %q", s.Slug)
			}
			seen[s.Slug] = true
			if !slugPattern.MatchString(s.Slug) {
				t.Errorf("slug %q does not match %s", s.Slug, slugPattern)
			}
		}
	})

	t.Run("every category is known", func(t *testing.T) {
		for _, s := range c.Services {
			if !slices.Contains(Categories, s.Category) {
				t.Errorf("%s: category %q not in Categories", s.Slug, s.Category)
			}
		}
	})

	t.Run("every feed format is known", func(t *testing.T) {
		for _, s := range c.Services {
			if !slices.Contains(FeedFormats, s.Feed.Format) {
				t.Errorf("%s: feed format %q not in FeedFormats", s.Slug, s.Feed.Format)
			}
		}
	})

	t.Run("statuspage and incidentio feeds have both URLs", func(t *testing.T) {
		// n only proves the loop checked something; how many services
		// speak either format is the catalog's business.
		n := 0
		for _, s := range c.Services {
			if s.Feed.Format != FormatStatuspage && s.Feed.Format != FormatIncidentIO {
				continue
			}
			n++
			if s.Feed.URL == "" {
				t.Errorf("%s (%s): feed.url is empty", s.Slug, s.Feed.Format)
			}
			if s.Feed.IncidentsURL == "" {
				t.Errorf("%s (%s): feed.incidentsUrl is empty", s.Slug, s.Feed.Format)
			}
		}
		if n == 0 {
			t.Error("no service uses statuspage or incidentio: the check above checked nothing")
		}
	})

	// The sources as the latest public facts describe them (2026-10): the
	// pages that moved, and the scopes that keep a consumer product's
	// incident from reading as an API outage.
	t.Run("sources at the latest known facts", func(t *testing.T) {
		for _, tt := range []struct {
			slug   string
			format FeedFormat
			url    string
			check  func(Feed) bool
		}{
			{"openai", FormatIncidentIO, "https://status.openai.com/api/v2/summary.json", func(f Feed) bool {
				return f.ComponentsURL == "https://status.openai.com/api/v2/components.json" &&
					slices.Contains(f.Scope.Components, "01K5H8S53SY1KMS4GQMNMQM1K5") && slices.Contains(f.Scope.ExcludeIncidents, "ChatGPT")
			}},
			{"anthropic", FormatStatuspage, "https://status.claude.com/api/v2/summary.json", func(f Feed) bool {
				return slices.Equal(f.Scope.Components, []string{"k8w3r06qmzrp"}) && slices.Contains(f.Scope.ExcludeIncidents, "claude.ai")
			}},
			{"google-gemini", FormatGoogleCloud, "https://status.cloud.google.com/incidents.json", func(f Feed) bool {
				return slices.Contains(f.Scope.ComponentNames, "Vertex Gemini API")
			}},
			{"mistral", FormatNone, "", func(f Feed) bool { return strings.Contains(f.Note, "Rootly") }},
			{"deepseek", FormatNone, "", func(f Feed) bool { return strings.Contains(f.Note, "deepseek.statuspage.io") }},
			{"xai", FormatRSS, "https://status.x.ai/feed.xml", func(f Feed) bool { return slices.Contains(f.Scope.IncidentKeywords, "api.x.ai") }},
			{"perplexity", FormatIncidentIO, "https://status.perplexity.com/api/v2/summary.json", func(f Feed) bool {
				return slices.Contains(f.Scope.Components, "01M2R6E5FPASTEW3A3V8TSYHJ0")
			}},
			{"fireworks", FormatIncidentIO, "https://status.fireworks.ai/api/v2/summary.json", nil},
			{"replicate", FormatStatuspage, "https://www.cloudflarestatus.com/api/v2/summary.json", func(f Feed) bool {
				return slices.Equal(f.Scope.Components, []string{"fvgfcmy66tdr"}) && len(f.Scope.IncidentKeywords) == 0
			}},
			{"openrouter", FormatDatadog, "https://status.openrouter.ai/config.json", func(f Feed) bool {
				return slices.Contains(f.Scope.ComponentNames, "API - Gateway")
			}},
			{"langsmith", FormatNone, "", func(f Feed) bool { return strings.Contains(f.Note, "global page") }},
			{"github-copilot", FormatStatuspage, "https://www.githubstatus.com/api/v2/summary.json", func(f Feed) bool {
				return slices.Contains(f.Scope.Components, "pjmpxvq2cmr2") && slices.Contains(f.Scope.Components, "cnnb39dkkk82")
			}},
		} {
			s, ok := c.Lookup(tt.slug)
			switch {
			case !ok:
				t.Errorf("%s: not in the catalog", tt.slug)
			case s.Feed.Format != tt.format || s.Feed.URL != tt.url:
				t.Errorf("%s: feed %s %s, want %s %s", tt.slug, s.Feed.Format, s.Feed.URL, tt.format, tt.url)
			case tt.check != nil && !tt.check(s.Feed):
				t.Errorf("%s: feed %+v is not scoped as the latest facts say", tt.slug, s.Feed)
			}
		}
	})

	t.Run("every service says where its status comes from", func(t *testing.T) {
		for _, s := range c.Services {
			if strings.TrimSpace(s.Feed.Note) == "" {
				t.Errorf("%s: feed.note is empty", s.Slug)
			}
		}
	})

	t.Run("every feed other than none has a URL", func(t *testing.T) {
		for _, s := range c.Services {
			if s.Feed.Format != FormatNone && s.Feed.URL == "" {
				t.Errorf("%s: format %q without feed.url", s.Slug, s.Feed.Format)
			}
		}
	})

	t.Run("Lookup and Slugs", func(t *testing.T) {
		slugs := c.Slugs()
		if len(slugs) != len(c.Services) {
			t.Fatalf("len(Slugs()) = %d, want %d", len(slugs), len(c.Services))
		}
		for i, slug := range slugs {
			if slug != c.Services[i].Slug {
				t.Errorf("Slugs()[%d] = %q, want %q (catalog order)", i, slug, c.Services[i].Slug)
			}
			s, ok := c.Lookup(slug)
			if !ok || !reflect.DeepEqual(s, c.Services[i]) {
				t.Errorf("Lookup(%q) = %+v, %v; want services[%d]", slug, s, ok, i)
			}
		}
		if s, ok := c.Lookup("no-such-service"); ok || !reflect.DeepEqual(s, Service{}) {
			t.Errorf("Lookup(no-such-service) = %+v, %v; want zero, false", s, ok)
		}
		if _, ok := c.Lookup("openai"); !ok {
			t.Error("Lookup(openai) not found")
		}
	})
}

func TestCatalogJSONRoundTrip(t *testing.T) {
	t.Parallel()
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	data := c.JSON()
	if !strings.HasSuffix(string(data), "}\n") {
		t.Errorf("JSON() does not end with a newline after the document: %q", data[max(0, len(data)-10):])
	}
	back, err := Parse(data)
	if err != nil {
		t.Fatalf("Parse(JSON()): %v", err)
	}
	if !reflect.DeepEqual(back, c) {
		t.Errorf("round trip changed the catalog:\n got %+v\nwant %+v", back, c)
	}
	// A second round is byte-for-byte stable.
	if again := back.JSON(); string(again) != string(data) {
		t.Error("JSON() of the round-tripped catalog differs from the first rendering")
	}
}

func TestLoadCatalog(t *testing.T) {
	t.Parallel()
	def, err := Default()
	if err != nil {
		t.Fatal(err)
	}

	t.Run("empty path is the embedded catalog", func(t *testing.T) {
		c, err := Load("")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(c, def) {
			t.Error(`Load("") differs from Default()`)
		}
	})

	t.Run("file", func(t *testing.T) {
		small := Catalog{Services: []Service{validService("alpha"), validService("beta")}}
		path := filepath.Join(t.TempDir(), "catalog.json")
		if err := os.WriteFile(path, small.JSON(), 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(c, small) {
			t.Errorf("Load = %+v, want %+v", c, small)
		}
	})

	t.Run("missing file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "nope.json")
		_, err := Load(path)
		if !errors.Is(err, os.ErrNotExist) {
			t.Errorf("err = %v, want one wrapping os.ErrNotExist", err)
		}
	})

	t.Run("invalid file names the path", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "bad.json")
		if err := os.WriteFile(path, []byte(`{"services":[]}`), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(path)
		if err == nil {
			t.Fatal("Load of an empty catalog succeeded")
		}
		for _, want := range []string{path, "no services"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("err = %q, want it to mention %q", err, want)
			}
		}
	})
}

// validService returns a minimal valid service with the given slug.
func validService(slug string) Service {
	return Service{
		Slug:       slug,
		Name:       "Service " + slug,
		Category:   "llm-api",
		Domain:     slug + ".example.com",
		Domains:    []string{"api." + slug + ".example.com", "bedrock-runtime.*.amazonaws.com"},
		URL:        "https://" + slug + ".example.com",
		StatusPage: "https://status." + slug + ".example.com",
		Feed: Feed{
			Format:       FormatStatuspage,
			URL:          "https://status." + slug + ".example.com/api/v2/summary.json",
			IncidentsURL: "https://status." + slug + ".example.com/api/v2/incidents.json",
		},
		ProbeURL: "https://api." + slug + ".example.com/v1/models",
	}
}

func TestCatalogValidation(t *testing.T) {
	t.Parallel()
	// Each case edits the second of two otherwise valid services, so that the
	// error must name the service at fault (services[1] and its slug).
	tests := []struct {
		name string
		edit func(s *Service)
		want []string // substrings of the error message
	}{
		{"duplicate slug", func(s *Service) { s.Slug = "alpha" }, []string{`services[1] ("alpha")`, "duplicate slug"}},
		{"slug with space and upper case", func(s *Service) { s.Slug = "Open AI" }, []string{`("Open AI")`, "slug must be"}},
		{"slug with leading hyphen", func(s *Service) { s.Slug = "-x" }, []string{`("-x")`, "slug must be"}},
		{"slug with double hyphen", func(s *Service) { s.Slug = "a--b" }, []string{`("a--b")`, "slug must be"}},
		{"empty slug", func(s *Service) { s.Slug = "" }, []string{`services[1] ("")`, "slug must be"}},
		{"unknown category", func(s *Service) { s.Category = "chatbots" }, []string{`("beta")`, `unknown category "chatbots"`}},
		{"unknown format", func(s *Service) { s.Feed.Format = "atom" }, []string{`("beta")`, `unknown feed format "atom"`}},
		{"relative url", func(s *Service) { s.URL = "/home" }, []string{`("beta")`, "url:", `"/home" is not an absolute http(s) URL`}},
		{"ftp status page", func(s *Service) { s.StatusPage = "ftp://status.example.com" }, []string{`("beta")`, "statusPage:", "ftp://status.example.com"}},
		{"url without scheme", func(s *Service) { s.URL = "beta.example.com" }, []string{`("beta")`, "url:", "beta.example.com"}},
		{"relative feed url", func(s *Service) { s.Feed.URL = "summary.json" }, []string{`("beta")`, "feed.url:", "summary.json"}},
		{"ftp incidents url", func(s *Service) { s.Feed.IncidentsURL = "ftp://x.example.com/i" }, []string{`("beta")`, "feed.incidentsUrl:", "ftp://x.example.com/i"}},
		{"relative probe url", func(s *Service) { s.ProbeURL = "/v1/models" }, []string{`("beta")`, "probeUrl:", "/v1/models"}},
		{"empty name", func(s *Service) { s.Name = "" }, []string{`("beta")`, "name is empty"}},
		{"blank name", func(s *Service) { s.Name = "  \t" }, []string{`("beta")`, "name is empty"}},
		{"domain with slash", func(s *Service) { s.Domain = "beta.example.com/api" }, []string{`("beta")`, `domain "beta.example.com/api"`}},
		{"domain upper case", func(s *Service) { s.Domain = "Beta.example.com" }, []string{`("beta")`, `domain "Beta.example.com"`}},
		{"domain with port", func(s *Service) { s.Domain = "beta.example.com:443" }, []string{`("beta")`, `domain "beta.example.com:443"`}},
		{"empty domain", func(s *Service) { s.Domain = "" }, []string{`("beta")`, `domain ""`}},
		{"extra domain upper case", func(s *Service) { s.Domains = []string{"ok.example.com", "Chat.example.com"} }, []string{`("beta")`, `domains: "Chat.example.com"`}},
		{"format none without probeUrl", func(s *Service) { s.Feed = Feed{Format: FormatNone, Note: "n"}; s.ProbeURL = "" }, []string{`("beta")`, "no feed needs a probeUrl"}},
		{"format none without a note", func(s *Service) { s.Feed = Feed{Format: FormatNone} }, []string{`("beta")`, "feed.note must say why"}},
		{"scope entry empty", func(s *Service) { s.Feed.Scope.Components = []string{""} }, []string{`("beta")`, "feed.scope: components", "empty"}},
		{"scope entry padded", func(s *Service) { s.Feed.Scope.IncidentKeywords = []string{" API"} }, []string{"feed.scope: incidentKeywords", "surrounding spaces"}},
		{"scope entry twice", func(s *Service) { s.Feed.Scope.ExcludeComponents = []string{"Docs", "docs"} }, []string{"feed.scope: excludeComponents", "listed twice"}},
		{"relative components url", func(s *Service) { s.Feed.ComponentsURL = "/api/v2/components.json" }, []string{"feed.componentsUrl:"}},
		{"alternative is itself", func(s *Service) { s.Alternatives = []Alternative{{Slug: "beta", Why: "w"}} }, []string{`("beta")`, `alternatives: "beta" is the service itself`}},
		{"alternative unknown", func(s *Service) { s.Alternatives = []Alternative{{Slug: "gamma", Why: "w"}} }, []string{`("beta")`, `alternatives: "gamma" is not a slug`}},
		{"alternative twice", func(s *Service) { s.Alternatives = []Alternative{{Slug: "alpha", Why: "w"}, {Slug: "alpha", Why: "w"}} }, []string{`("beta")`, `"alpha" is listed twice`}},
		{"alternative without why", func(s *Service) { s.Alternatives = []Alternative{{Slug: "alpha", Why: " "}} }, []string{`("beta")`, "why is empty"}},
		{"feed url missing", func(s *Service) { s.Feed.URL = "" }, []string{`("beta")`, `feed.url is required for format "statuspage"`}},
		{"surface api listed", func(s *Service) { s.Surfaces = []Surface{validSurface(SurfaceAPI, "Beta API")} },
			[]string{`("beta")`, `surfaces[0] ("api"): the api surface is the feed's scope`}},
		{"surface unknown id", func(s *Service) { s.Surfaces = []Surface{validSurface("website", "Site")} }, []string{`surfaces[0] ("website"): unknown id`}},
		{"surface twice", func(s *Service) {
			s.Surfaces = []Surface{validSurface(SurfaceApp, "One"), validSurface(SurfaceApp, "Two")}
		},
			[]string{`surfaces[1] ("app"): listed twice`}},
		{"surface without a name", func(s *Service) { s.Surfaces = []Surface{validSurface(SurfaceApp, " ")} }, []string{`surfaces[0] ("app"): name is empty`}},
		{"surface scope is the whole page", func(s *Service) {
			sf := validSurface(SurfaceApp, "App")
			sf.Scope = Scope{ExcludeComponents: []string{"API"}}
			s.Surfaces = []Surface{sf}
		}, []string{`surfaces[0] ("app"): scope must name components or incident keywords`}},
		{"surface scope entry twice", func(s *Service) {
			sf := validSurface(SurfaceApp, "App")
			sf.Scope.IncidentKeywords = []string{"App", "app"}
			s.Surfaces = []Surface{sf}
		}, []string{`surfaces[0] ("app"): scope: incidentKeywords: "app" is listed twice`}},
		{"surface of a service without a feed", func(s *Service) {
			s.Feed = Feed{Format: FormatNone, Note: "n"}
			s.Surfaces = []Surface{validSurface(SurfaceApp, "App")}
		}, []string{`surfaces[0] ("app"): a service with no feed`}},
		{"surface domain with a path", func(s *Service) {
			sf := validSurface(SurfaceApp, "App")
			sf.Domains = []string{"chat.example.com/app"}
			s.Surfaces = []Surface{sf}
		}, []string{`surfaces[0] ("app"): domains: "chat.example.com/app"`}},
		{"surface probe URL not absolute", func(s *Service) {
			sf := validSurface(SurfaceApp, "App")
			sf.ProbeURL = "chat.example.com"
			s.Surfaces = []Surface{sf}
		}, []string{`surfaces[0] ("app"): probeUrl: "chat.example.com" is not an absolute http(s) URL`}},
		{"other component without why", func(s *Service) { s.OtherComponents = []OtherComponent{{Name: "Docs", Why: " "}} },
			[]string{`otherComponents[0] ("Docs"): why is empty`}},
		{"other component without a name", func(s *Service) { s.OtherComponents = []OtherComponent{{ID: "x1", Why: "w"}} },
			[]string{`otherComponents[0] (""): name is empty`}},
		{"other component listed twice", func(s *Service) {
			s.OtherComponents = []OtherComponent{{Name: "Docs", Why: "w"}, {Name: "docs", Why: "w"}}
		}, []string{`otherComponents[1] ("docs"): listed twice`}},
		{"surface name taken by a service", func(s *Service) { s.Surfaces = []Surface{validSurface(SurfaceApp, "Alpha")} },
			[]string{`("beta"): surface app: "Alpha" already names alpha`}},
		{"surface domain taken by its own service", func(s *Service) {
			sf := validSurface(SurfaceApp, "Chat")
			sf.Domains = []string{s.Domain}
			s.Surfaces = []Surface{sf}
		}, []string{`surface app: "beta.example.com" already names beta`}},
		{"surface alias taken by another surface", func(s *Service) {
			one, two := validSurface(SurfaceApp, "Chat"), validSurface(SurfaceAgent, "Code")
			two.Aliases = []string{"chat"}
			s.Surfaces = []Surface{one, two}
		}, []string{`surface agent: "chat" already names beta/app`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Catalog{Services: []Service{validService("alpha"), validService("beta")}}
			tt.edit(&c.Services[1])
			_, err := Parse(c.JSON())
			if err == nil {
				t.Fatal("Parse succeeded, want an error")
			}
			for _, want := range tt.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("err = %q\nwant it to contain %q", err, want)
				}
			}
			if strings.Contains(err.Error(), `("alpha")`) && tt.name != "duplicate slug" {
				t.Errorf("err = %q blames the valid service alpha", err)
			}
			// Validate on the value gives the same verdict as Parse.
			if verr := c.Validate(); verr == nil {
				t.Error("Validate() = nil, want an error")
			}
		})
	}

	t.Run("valid variants are accepted", func(t *testing.T) {
		none := validService("probe-only")
		none.Feed = Feed{Format: FormatNone, Note: "the page refuses non-browser clients"}
		noIncidents := validService("rss-feed")
		noIncidents.Feed = Feed{Format: FormatRSS, URL: "http://example.com/feed.xml", Scope: Scope{IncidentKeywords: []string{"OpenAI"}}}
		noIncidents.ProbeURL = ""
		withAlt := validService("a2")
		withAlt.Alternatives = []Alternative{{Slug: "a1", Why: "serves the same models"}}
		withSurfaces := validService("a3")
		app, agent := validSurface(SurfaceApp, "A3 Chat"), validSurface(SurfaceAgent, "A3 Code")
		app.Domains, agent.Aliases = []string{"chat.a3.example.com"}, []string{"a3 cli"}
		withSurfaces.Surfaces = []Surface{app, agent}
		c := Catalog{Services: []Service{validService("a1"), none, noIncidents, withAlt, withSurfaces}}
		if _, err := Parse(c.JSON()); err != nil {
			t.Errorf("Parse: %v", err)
		}
	})
}

func TestParseCatalogDocumentErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		doc  string
		want []string
	}{
		{
			name: "unknown field (typo)",
			doc: `{"services":[{"slug":"alpha","name":"A","category":"llm-api","domain":"a.example.com",
				"url":"https://a.example.com","statusPage":"https://s.example.com",
				"feed":{"format":"statuspage","url":"https://s.example.com/x","incidentUrl":"https://s.example.com/i"}}]}`,
			want: []string{"catalog:", `unknown field "incidentUrl"`},
		},
		{
			name: "the first version's feed filter",
			doc: `{"services":[{"slug":"alpha","name":"A","category":"llm-api","domain":"a.example.com",
				"url":"https://a.example.com","statusPage":"https://s.example.com",
				"feed":{"format":"statuspage","url":"https://s.example.com/x","filter":["Copilot"]}}]}`,
			want: []string{`unknown field "filter"`, "replaced by feed.scope"},
		},
		{
			name: "unknown top-level field",
			doc:  `{"service":[]}`,
			want: []string{`unknown field "service"`},
		},
		{name: "empty catalog", doc: `{"services":[]}`, want: []string{"catalog: no services"}},
		{name: "no services key", doc: `{}`, want: []string{"catalog: no services"}},
		{name: "malformed JSON", doc: `{"services":[{"slug":"alpha",}]}`, want: []string{"catalog:", "invalid character"}},
		{name: "truncated JSON", doc: `{"services":[`, want: []string{"catalog:", "EOF"}},
		{name: "empty document", doc: ``, want: []string{"catalog:", "EOF"}},
		{name: "wrong type", doc: `{"services":{"slug":"alpha"}}`, want: []string{"catalog:", "cannot unmarshal"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse([]byte(tt.doc))
			if err == nil {
				t.Fatalf("Parse succeeded with %+v, want an error", c)
			}
			if !reflect.DeepEqual(c, Catalog{}) {
				t.Errorf("Parse returned %+v alongside its error, want the zero Catalog", c)
			}
			for _, want := range tt.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("err = %q\nwant it to contain %q", err, want)
				}
			}
		})
	}
}

func TestParseCatalogTrailingData(t *testing.T) {
	t.Parallel()
	good := Catalog{Services: []Service{validService("alpha")}}.JSON()
	for _, tail := range []string{"}", `{"services":[]}`, "garbage"} {
		if _, err := Parse(append(slices.Clone(good), tail...)); err == nil {
			t.Errorf("Parse accepted trailing %q", tail)
		}
	}
}

func TestCatalogValidationReportsAllProblems(t *testing.T) {
	t.Parallel()
	bad := validService("beta")
	bad.Slug = "Bad Slug"
	bad.Category = "nope"
	bad.URL = "ftp://bad.example.com"
	noName := validService("gamma")
	noName.Name = ""
	dup := validService("alpha")
	c := Catalog{Services: []Service{validService("alpha"), bad, noName, dup}}

	_, err := Parse(c.JSON())
	if err == nil {
		t.Fatal("Parse succeeded, want an error")
	}
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		t.Fatalf("err is %T, want an errors.Join result", err)
	}
	// bad: slug, category, url (3); gamma: name (1); alpha again: duplicate (1).
	if n := len(joined.Unwrap()); n != 5 {
		t.Errorf("%d errors reported, want 5:\n%v", n, err)
	}
	for _, want := range []string{
		`services[1] ("Bad Slug"): slug must be`,
		`services[1] ("Bad Slug"): unknown category "nope"`,
		`services[1] ("Bad Slug"): url: "ftp://bad.example.com"`,
		`services[2] ("gamma"): name is empty`,
		`services[3] ("alpha"): duplicate slug`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err = %q\nwant it to contain %q", err, want)
		}
	}
}

// validSurface is a surface that passes validation, scoped by one
// component name and one incident keyword.
func validSurface(id SurfaceID, name string) Surface {
	return Surface{ID: id, Name: name, Scope: Scope{ComponentNames: []string{name + " component"}, IncidentKeywords: []string{name + " keyword"}}}
}

// TestSurfacesProbeTheirOwnHost: in the default catalog, an app or console
// with a host of its own is probed there, at its first domain (/check's
// latency for claude.ai is claude.ai's, not the API host's); an agent has
// no host and no probe.
func TestSurfacesProbeTheirOwnHost(t *testing.T) {
	t.Parallel()
	cat, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	probed := 0
	for _, svc := range cat.Services {
		for _, sf := range svc.Surfaces {
			want := ""
			if len(sf.Domains) > 0 && sf.ID != SurfaceAgent {
				want = "https://" + sf.Domains[0] + "/"
				probed++
			}
			if sf.ProbeURL != want {
				t.Errorf("%s/%s: probeUrl %q, want %q", svc.Slug, sf.ID, sf.ProbeURL, want)
			}
		}
	}
	if probed == 0 {
		t.Error("no surface is probed")
	}
}
