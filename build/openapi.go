package build

import (
	"bytes"
	"cmp"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/aistatus/aistatus/snapshot"
)

// openapiDocument is the hand-kept OpenAPI 3.0.3 description of the API. Its
// servers[0].url is the relative placeholder openapiAPIPath, which OpenAPI
// replaces with the site's absolute address.
//
//go:embed openapi.json
var openapiDocument []byte

// openapiAPIPath is where the API lives under the site's base URL.
const openapiAPIPath = snapshot.APIBase

// openapiServices stands for the number of services in the text of
// openapi.json: the catalog is an input of each build (--catalog), so the
// hand-kept file cannot state it, and a number written there would go
// stale with the next service added.
const openapiServices = "{services}"

// OpenAPI returns the OpenAPI description with servers[0].url set to baseURL +
// "/api/v1" (baseURL without trailing slash, e.g. "https://aistatus.example"),
// the servers of the paths outside the API's base (the façade, /metrics, the
// feeds, /mcp, …: each path item with servers of its own) set to baseURL,
// the site's root, and the number of services (the catalog's) written into
// its text. Output is indented JSON ending in a newline, deterministic.
//
// A trailing slash on baseURL is tolerated; an empty baseURL keeps the
// relative server URLs "/api/v1" and "/". The key order of the hand-kept
// document is preserved.
func OpenAPI(baseURL string, services int) ([]byte, error) {
	serverURL, err := openapiServerURL(baseURL)
	if err != nil {
		return nil, err
	}
	shape, err := openapiShape()
	if err != nil {
		return nil, err
	}
	return openapiFill(shape, serverURL, cmp.Or(strings.TrimRight(baseURL, "/"), "/"), services), nil
}

// openapiFill writes the server URLs and the number of services into a
// shape made by openapiShapeOf.
func openapiFill(shape []byte, serverURL, siteURL string, services int) []byte {
	apiJSON, _ := json.Marshal(serverURL)
	siteJSON, _ := json.Marshal(siteURL)
	out := bytes.ReplaceAll(shape, openapiAPIToken, apiJSON)
	out = bytes.ReplaceAll(out, openapiSiteToken, siteJSON)
	return bytes.ReplaceAll(out, []byte(openapiServices), []byte(strconv.Itoa(services)))
}

// openapiAPIToken and openapiSiteToken stand, in openapiShape, for the
// server URLs of the API and of the site's root, each a JSON string.
var (
	openapiAPIToken  = []byte(`"\u0000aistatus-api-url\u0000"`)
	openapiSiteToken = []byte(`"\u0000aistatus-site-url\u0000"`)
)

// openapiShape is the hand-kept document's shape, made once: walking the
// document's members made it a fifth of each build's work, for an answer
// that depends on the base URL and the number of services only as text.
var openapiShape = sync.OnceValues(func() ([]byte, error) { return openapiShapeOf(openapiDocument) })

// openapiShapeOf is the document as OpenAPI returns it, compacted and
// indented, its server URLs still tokens.
func openapiShapeOf(document []byte) ([]byte, error) {
	apiURL, siteURL := "\x00aistatus-api-url\x00", "\x00aistatus-site-url\x00"
	doc, err := openapiSetMember(document, "servers", openapiSetServerURL(apiURL))
	if err == nil {
		doc, err = openapiSetMember(doc, "paths", func(paths json.RawMessage) (json.RawMessage, error) {
			return openapiEachMember(paths, func(path string, item json.RawMessage) (json.RawMessage, error) {
				return openapiEachMember(item, func(name string, value json.RawMessage) (json.RawMessage, error) {
					if name != "servers" {
						return value, nil
					}
					value, err := openapiSetServerURL(siteURL)(value)
					if err != nil {
						return nil, fmt.Errorf("%s: %w", path, err)
					}
					return value, nil
				})
			})
		})
	}
	if err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, doc, "", "  "); err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// openapiServerURL is the absolute address of the API under baseURL.
func openapiServerURL(baseURL string) (string, error) {
	baseURL = strings.TrimRight(baseURL, "/")
	if baseURL == "" {
		return openapiAPIPath, nil
	}
	u, err := url.Parse(baseURL)
	if err != nil {
		return "", fmt.Errorf("openapi: base URL: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", fmt.Errorf("openapi: base URL %q is not an absolute http(s) URL without query or fragment", baseURL)
	}
	return baseURL + openapiAPIPath, nil
}

// openapiSetServerURL returns a function that sets the url of the first
// server of a servers list.
func openapiSetServerURL(url string) func(json.RawMessage) (json.RawMessage, error) {
	return func(servers json.RawMessage) (json.RawMessage, error) {
		var list []json.RawMessage
		if err := json.Unmarshal(servers, &list); err != nil {
			return nil, err
		}
		if len(list) == 0 {
			return nil, errors.New("servers is empty")
		}
		first, err := openapiSetMember(list[0], "url", func(json.RawMessage) (json.RawMessage, error) {
			return json.Marshal(url)
		})
		if err != nil {
			return nil, fmt.Errorf("servers[0]: %w", err)
		}
		list[0] = first
		// Joined by hand: json.Marshal would escape <, > and & in the text.
		out := []byte{'['}
		for i, server := range list {
			if i > 0 {
				out = append(out, ',')
			}
			out = append(out, server...)
		}
		return append(out, ']'), nil
	}
}

// openapiSetMember returns the JSON object obj, compacted, with the value of
// key replaced by set(old value), keeping the order of the members. It fails
// when obj is not an object or has no such key.
func openapiSetMember(obj json.RawMessage, key string, set func(json.RawMessage) (json.RawMessage, error)) (json.RawMessage, error) {
	found := false
	out, err := openapiEachMember(obj, func(name string, value json.RawMessage) (json.RawMessage, error) {
		if name != key || found {
			return value, nil
		}
		found = true
		value, err := set(value)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		return value, nil
	})
	if err == nil && !found {
		err = fmt.Errorf("no %q member", key)
	}
	return out, err
}

// openapiEachMember returns the JSON object obj, compacted, with the value
// of each member replaced by set(name, value), keeping their order. It
// fails when obj is not an object.
func openapiEachMember(obj json.RawMessage, set func(name string, value json.RawMessage) (json.RawMessage, error)) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	var out bytes.Buffer
	out.WriteByte('{')
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := tok.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, err
		}
		if value, err = set(name, value); err != nil {
			return nil, err
		}
		if out.Len() > 1 {
			out.WriteByte(',')
		}
		k, _ := json.Marshal(name)
		out.Write(k)
		out.WriteByte(':')
		if err := json.Compact(&out, value); err != nil {
			return nil, err
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	out.WriteByte('}')
	return out.Bytes(), nil
}
