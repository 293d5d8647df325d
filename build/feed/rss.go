package feed

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"

	"golang.org/x/text/encoding/charmap"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/history"
)

// rss reads an RSS 2.0 or Atom 1.0 status feed (the root element says
// which). A feed only lists events, so the status is a heuristic over the
// words of the recent items, measured against the cycle's clock.
type rss struct{}

const rssAcceptTypes = "application/rss+xml, application/atom+xml, application/xml;q=0.9, */*;q=0.1"

// The windows, back from now, in which an item counts for the status and
// in which it is listed as an incident. The second is as long as the
// history keeps an incident after it ends, as every other feed's list is:
// a fresh instance must list the outage of two months ago that the feed
// still carries, as one that has run since saw it. An item dated more
// than api.IncidentFutureSlack ahead of now announces something to come (a
// scheduled maintenance) and counts for neither.
const (
	rssStatusWindow   = 24 * time.Hour
	rssIncidentWindow = history.KeepIncidents
)

// The words the heuristics look for, as whole words in the title or text.
var (
	rssResolvedWords    = regexp.MustCompile(`(?i)\b(resolved|mitigated|recovered|restored|completed|post[- ]incident review|pir)\b`)
	rssMaintenanceWords = regexp.MustCompile(`(?i)\b(maintenance|scheduled)\b`)
	rssOutageWords      = regexp.MustCompile(`(?i)\b(outages?|unavailable|unavailability|down|downtime)\b`)
)

// Read fetches the feed and parses it.
func (rss) Read(ctx context.Context, req Request) (Result, error) {
	return readDocument(ctx, req, rssAcceptTypes, parseRSS)
}

// rssEntry is one RSS item or Atom entry, format aside.
type rssEntry struct {
	guid, title, link, text string
	// tags are the item's categories: what it affects, where the feed says
	// (Azure names the affected services only there).
	tags               string
	rawDate            string
	published, updated time.Time // updated is never before published
	// regions are the tags of the items that share its guid, its own
	// included, in the feed's order (rssDedupe).
	regions []string
}

// parseRSS turns a feed into a Result as of the request's clock. Items in
// the service's scope (by their title and categories: a description saying
// "api.x.ai is unaffected" must not put a Grok item in the API's scope) are
// kept, test posts aside; an item without a title or a readable date is
// skipped, and so is one dated more than an hour ahead. Kept items sharing
// a guid are one item: the one updated last. Scope comes first: xAI posts
// one event once per product with one guid, and the API's item must not
// lose to a Grok one. Items that are one event posted per region (rssEvents)
// are then one incident. Among the events of the last 24 hours that are
// not resolved, maintenance gives Maintenance, outage words a partial
// outage, anything else Degraded. Every event of the last 90 days that is
// not maintenance is an incident; a resolved one ends at its "Resolved:"
// line when it has one, else when it was last updated.
func parseRSS(data []byte, req Request) (Result, error) {
	svc, now := req.Service, req.Now
	entries, err := rssParse(data)
	if err != nil {
		return Result{}, err
	}
	s := newScoper(svc.Feed.Scope, nil, false, pageScopes(svc)...)
	res := Result{Status: api.Operational, Tags: rssTags(entries, s)}
	usable := entries[:0]
	for _, e := range entries {
		if e.title != "" && !e.published.IsZero() && !rssTestPost(e.title) && s.incident(e.title+"\n"+e.tags, nil) {
			usable = append(usable, e)
		}
	}
	events := rssEvents(rssDedupe(usable), now)
	// A link names an item only when no other item without a guid shares it
	// (some feeds link every item to the same status page).
	links := map[string]int{}
	for _, e := range events {
		if e.guid == "" && e.link != "" {
			links[e.link]++
		}
	}
	seen := map[string]bool{}
	for _, e := range events {
		if e.published.After(now.Add(api.IncidentFutureSlack)) {
			continue
		}
		if !e.resolved && !e.updated.Before(now.Add(-rssStatusWindow)) {
			switch {
			case e.maintenance:
				res.Status = api.Worse(res.Status, api.Maintenance)
			case e.outage:
				res.Status = api.Worse(res.Status, api.PartialOutage)
			default:
				res.Status = api.Worse(res.Status, api.Degraded)
			}
		}
		if e.maintenance || e.updated.Before(now.Add(-rssIncidentWindow)) {
			continue
		}
		upstream := e.guid
		if upstream == "" && e.link != "" && links[e.link] == 1 {
			upstream = e.link
		}
		if upstream == "" {
			upstream = api.HashID(e.title + "\n" + e.rawDate)
		}
		id := api.OfficialIncidentID(svc.Slug, upstream)
		if id == "" || seen[id] { // two items that differ only in what sanitising drops
			continue
		}
		seen[id] = true
		inc := api.Incident{
			ID:        id,
			Service:   svc.Slug,
			Headline:  e.headline(),
			Severity:  api.Minor,
			StartedAt: e.published,
			Status:    "investigating",
			Source:    api.SourceOfficial,
			URL:       e.link,
			UpdatedAt: e.updated,
		}
		if inc.URL == "" {
			inc.URL = svc.StatusPage
		}
		if e.outage {
			inc.Severity = api.Major
		}
		if e.resolved {
			ended := e.end
			inc.EndedAt = &ended
			inc.Status = "resolved"
		}
		res.Incidents = append(res.Incidents, inc)
	}
	api.SortIncidents(res.Incidents)
	return res, nil
}

// rssDedupe keeps one entry per guid, the one updated last (the first of
// equals); entries without a guid are all kept. The order is otherwise kept.
// The regions of the entries merged are kept: xAI posts one event under one
// guid for each region it affects.
func rssDedupe(entries []rssEntry) []rssEntry {
	at := map[string]int{}
	var out []rssEntry
	for _, e := range entries {
		if e.guid == "" {
			out = append(out, e)
			continue
		}
		i, seen := at[e.guid]
		switch {
		case !seen:
			at[e.guid] = len(out)
			e.regions = rssAddRegion(nil, rssRegion(e.title))
			out = append(out, e)
			continue
		case e.updated.After(out[i].updated):
			regions := out[i].regions
			out[i] = e
			out[i].regions = regions
		}
		out[i].regions = rssAddRegion(out[i].regions, rssRegion(e.title))
	}
	return out
}

// rssRegionTag is the "[region]" an xAI title starts with ("[US
// (us.api.x.ai)] Outages across API"): the surface or region the item is
// posted for.
var rssRegionTag = regexp.MustCompile(`^\[([^\]]{1,80})\]\s*(\S.*)$`)

// rssRegion is a title's leading tag, "" for none.
func rssRegion(title string) string {
	if m := rssRegionTag.FindStringSubmatch(title); m != nil {
		return strings.TrimSpace(m[1])
	}
	return ""
}

// rssTags are the tags of the feed's items (every item's, whatever its
// date: a tag is what the feed posts for, placed or not), each once, in
// the feed's order, and whether the scope takes an item posted for that
// tag alone ("[Voice]"). The scope's keywords decide, as they do for the
// items.
func rssTags(entries []rssEntry, s scoper) []Tag {
	var tags []Tag
	seen := map[string]bool{}
	for _, e := range entries {
		name := strings.Join(strings.Fields(rssRegion(e.title)), " ")
		if name == "" || seen[name] {
			continue
		}
		seen[name] = true
		tags = append(tags, Tag{Name: name, InScope: s.incident("["+name+"]", nil)})
	}
	return tags
}

// rssAddRegion adds region to regions unless it is empty or there already.
func rssAddRegion(regions []string, region string) []string {
	if region == "" || slices.Contains(regions, region) {
		return regions
	}
	return append(regions, region)
}

// rssTestWords is what a test post's title says once its region tag is
// taken off and "+" read as a space: xAI has posted "Test+Incident".
var rssTestWords = regexp.MustCompile(`(?i)^test(ing)?( incident)?$`)

// rssTestPost reports whether an item is a test of the status page, not an
// event: it would otherwise count as an incident and turn the status.
func rssTestPost(title string) bool {
	if m := rssRegionTag.FindStringSubmatch(title); m != nil {
		title = m[2]
	}
	return rssTestWords.MatchString(strings.Join(strings.Fields(strings.ReplaceAll(title, "+", " ")), " "))
}

// rssResolvedAt reads the time of a "Resolved: <date>" line, as xAI puts
// one in each resolved item ("<p>Resolved: Thu, 03 Sep 2026 17:07:20
// GMT</p>"): the item's own end, which its dates do not carry (pubDate is
// the start, and there is no <updated>).
var rssResolvedAt = regexp.MustCompile(`(?i)\bResolved:\s*([^<\n]{1,64})`)

// rssEvent is one event: a kept item, or the items that are one event
// posted once per region, with the heuristics' reading of its words.
type rssEvent struct {
	rssEntry
	resolved, maintenance, outage bool
	// end is when a resolved event ended.
	end time.Time
}

// headline is the event's title, its regions listed in its tag when it was
// posted for more than one ("[Global (api.x.ai), US (us.api.x.ai)] …").
func (e rssEvent) headline() string {
	title := strings.Join(strings.Fields(e.title), " ")
	if m := rssRegionTag.FindStringSubmatch(title); m != nil && len(e.regions) > 1 {
		title = "[" + strings.Join(e.regions, ", ") + "] " + m[2]
	}
	return title
}

// rssEvents reads each entry's words and merges the entries that are one
// event posted per region: the same title once the region tag is taken
// off, and the same start. The event is resolved when every region's item
// is, and ends with the last of them; an outage or maintenance in any
// region is the event's. Its id is the smallest of the items' guids, which
// does not depend on the feed's order. An entry without a region tag is an
// event of its own.
func rssEvents(entries []rssEntry, now time.Time) []rssEvent {
	var out []rssEvent
	at := map[string]int{}
	for _, e := range entries {
		words := e.title + "\n" + e.text
		ev := rssEvent{
			rssEntry:    e,
			resolved:    rssResolvedWords.MatchString(words),
			maintenance: rssMaintenanceWords.MatchString(words),
			outage:      rssOutageWords.MatchString(words),
		}
		ev.regions = rssAddRegion(slices.Clone(e.regions), rssRegion(e.title)) // an entry without a guid has none yet
		if ev.resolved {
			ev.end = ev.updated
			// The item's own end, unless it is out of the sane range or
			// ahead of now: a broken line must not drop the incident.
			if m := rssResolvedAt.FindStringSubmatch(e.text); m != nil {
				if end, ok := rssTime(m[1]); ok && api.SaneTime(end) && !end.After(now.Add(api.IncidentFutureSlack)) {
					ev.end = end
					if end.After(ev.updated) {
						ev.updated = end
					}
				}
			}
		}
		m := rssRegionTag.FindStringSubmatch(strings.Join(strings.Fields(e.title), " "))
		if m == nil {
			out = append(out, ev)
			continue
		}
		key := m[2] + "\x00" + e.published.Format(time.RFC3339Nano)
		i, seen := at[key]
		if !seen {
			at[key] = len(out)
			out = append(out, ev)
			continue
		}
		first := &out[i]
		for _, r := range ev.regions {
			first.regions = rssAddRegion(first.regions, r)
		}
		first.maintenance = first.maintenance || ev.maintenance
		first.outage = first.outage || ev.outage
		if first.resolved && ev.resolved && ev.end.After(first.end) {
			first.end = ev.end
		}
		first.resolved = first.resolved && ev.resolved
		if ev.updated.After(first.updated) {
			first.updated = ev.updated
		}
		if ev.guid != "" && (first.guid == "" || ev.guid < first.guid) {
			first.guid, first.link = ev.guid, ev.link
		}
	}
	return out
}

// The XML shapes read. Element names match in any namespace, so
// <a10:updated> in an RSS item is "updated" and <content:encoded> "encoded".
type (
	rssXMLLink struct {
		XMLName xml.Name
		Href    string `xml:"href,attr"`
		Rel     string `xml:"rel,attr"`
		Text    string `xml:",chardata"`
	}
	rssXMLDoc struct {
		Channel *struct {
			Items []struct {
				Title       string       `xml:"title"`
				Links       []rssXMLLink `xml:"link"`
				GUID        string       `xml:"guid"`
				PubDate     string       `xml:"pubDate"`
				Updated     string       `xml:"updated"`
				Description string       `xml:"description"`
				Content     string       `xml:"encoded"`
				// Categories name what an item affects: Azure's feed lists
				// the affected services only there, one per <category>.
				Categories []string `xml:"category"`
			} `xml:"item"`
		} `xml:"channel"`
	}
	atomXMLDoc struct {
		Entries []struct {
			Title     string       `xml:"title"`
			ID        string       `xml:"id"`
			Links     []rssXMLLink `xml:"link"`
			Published string       `xml:"published"`
			Updated   string       `xml:"updated"`
			Summary   string       `xml:"summary"`
			Content   struct {
				Inner string `xml:",innerxml"`
			} `xml:"content"`
		} `xml:"entry"`
	}
)

// rssParse decodes the document by its root element: <rss> (with a
// <channel>) or <feed>. Anything else, or anything after the root element
// but comments and white space, is an error.
func rssParse(data []byte) ([]rssEntry, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.CharsetReader = rssCharset
	var root xml.StartElement
	for root.Name.Local == "" {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil, errors.New("no root element")
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			root = t
		case xml.CharData:
			if len(bytes.TrimSpace(t)) > 0 {
				return nil, errors.New("text before the root element")
			}
		}
	}
	var entries []rssEntry
	switch root.Name.Local {
	case "rss":
		var doc rssXMLDoc
		if err := dec.DecodeElement(&doc, &root); err != nil {
			return nil, err
		}
		if doc.Channel == nil {
			return nil, errors.New("<rss> without a <channel>")
		}
		for _, it := range doc.Channel.Items {
			e := rssEntry{
				guid:    strings.TrimSpace(it.GUID),
				title:   strings.TrimSpace(it.Title),
				link:    rssLink(it.Links),
				text:    it.Description + "\n" + it.Content,
				tags:    strings.Join(it.Categories, "\n"),
				rawDate: strings.TrimSpace(it.PubDate),
			}
			e.published, _ = rssTime(it.PubDate)
			e.updated = e.published
			if u, ok := rssTime(it.Updated); ok && !e.published.IsZero() && u.After(e.published) {
				e.updated = u
			}
			entries = append(entries, e)
		}
	case "feed":
		var doc atomXMLDoc
		if err := dec.DecodeElement(&doc, &root); err != nil {
			return nil, err
		}
		for _, en := range doc.Entries {
			e := rssEntry{
				guid:    strings.TrimSpace(en.ID),
				title:   strings.TrimSpace(en.Title),
				link:    rssLink(en.Links),
				text:    en.Summary + "\n" + en.Content.Inner,
				rawDate: strings.TrimSpace(en.Published),
			}
			published, okP := rssTime(en.Published)
			updated, okU := rssTime(en.Updated)
			switch {
			case okP && okU:
				e.published, e.updated = published, updated
				if updated.Before(published) {
					e.updated = published
				}
			case okP:
				e.published, e.updated = published, published
			case okU:
				e.published, e.updated = updated, updated
				e.rawDate = strings.TrimSpace(en.Updated)
			}
			entries = append(entries, e)
		}
	default:
		return nil, fmt.Errorf("root element <%s> is neither RSS nor Atom", root.Name.Local)
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return entries, nil
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.Comment, xml.ProcInst:
		case xml.CharData:
			if len(bytes.TrimSpace(t)) > 0 {
				return nil, errors.New("text after the root element")
			}
		default:
			return nil, errors.New("content after the root element")
		}
	}
}

// rssLink picks an item's web link: an RSS <link> with text, else an Atom
// <link href> whose rel is alternate or absent.
func rssLink(links []rssXMLLink) string {
	for _, l := range links {
		if t := strings.TrimSpace(l.Text); t != "" && l.Href == "" {
			return t
		}
	}
	for _, l := range links {
		if h := strings.TrimSpace(l.Href); h != "" && (l.Rel == "" || l.Rel == "alternate") {
			return h
		}
	}
	return ""
}

// rssCharset lets a feed declare US-ASCII or ISO-8859-1 besides UTF-8.
func rssCharset(label string, input io.Reader) (io.Reader, error) {
	switch strings.ToLower(strings.TrimSpace(label)) {
	case "utf-8", "utf8", "us-ascii", "ascii":
		return input, nil
	case "iso-8859-1", "iso8859-1", "latin1", "latin-1":
		return charmap.ISO8859_1.NewDecoder().Reader(input), nil
	}
	return nil, fmt.Errorf("unsupported charset %q", label)
}

// rssZones are the zone names RFC 822 allows, and Z, as numeric offsets.
// Replacing them before parsing keeps the result independent of the local
// time zone (time.Parse reads an abbreviation through it).
var rssZones = map[string]string{
	"UT": "+0000", "UTC": "+0000", "GMT": "+0000", "Z": "+0000",
	"EST": "-0500", "EDT": "-0400", "CST": "-0600", "CDT": "-0500",
	"MST": "-0700", "MDT": "-0600", "PST": "-0800", "PDT": "-0700",
}

// rssLayouts are the RFC 822 / RFC 1123 date forms: with or without the
// weekday and the seconds, with a two- or four-digit year.
var rssLayouts = []string{
	"Mon, 2 Jan 2006 15:04:05 -0700",
	"Mon, 2 Jan 2006 15:04:05 -07:00",
	"Mon, 2 Jan 2006 15:04 -0700",
	"2 Jan 2006 15:04:05 -0700",
	"2 Jan 2006 15:04 -0700",
	"Mon, 2 Jan 06 15:04:05 -0700",
	"Mon, 2 Jan 06 15:04 -0700",
	"2 Jan 06 15:04:05 -0700",
	"2 Jan 06 15:04 -0700",
}

// rssTime reads an RSS date, or an RFC 3339 one (Atom, and some RSS
// feeds), in UTC. ok is false for an empty or unreadable date.
func rssTime(s string) (t time.Time, ok bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, false
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UTC(), true
	}
	fields := strings.Fields(s)
	if z, ok := rssZones[strings.ToUpper(fields[len(fields)-1])]; ok {
		fields[len(fields)-1] = z
	}
	s = strings.Join(fields, " ")
	for _, layout := range rssLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

var _ Adapter = rss{}
