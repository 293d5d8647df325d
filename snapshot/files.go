package snapshot

// The names of the files in a snapshot folder.
const (
	FileManifest  = "snapshot.json"
	FileStatus    = "status.json"
	FileIncidents = "incidents.json"
	FileExport    = "export.csv"
	FileOpenAPI   = "openapi.json"
	FileHistory   = "history.json"
	FileSources   = "sources.json"
	DirServices   = "services"
)

// ServiceFile is the path of a service's detail document inside a snapshot.
func ServiceFile(slug string) string { return DirServices + "/" + slug + ".json" }

// FileChanges is the recent change log in a snapshot folder.
const FileChanges = "changes.json"

// The open dataset's folder and its index, which history/dataset.go writes.
const (
	DirDatasets  = "datasets"
	FileDatasets = DirDatasets + "/index.json"
)

// ServiceHistoryFile is the path of a service's whole daily history inside
// a snapshot: what a static host answers for /services/{slug}/history,
// every retained day; the thin server answers from/to from it. Not
// history.json: the server keeps files of that name to itself.
func ServiceHistoryFile(slug string) string { return DirServices + "/" + slug + "/daily.json" }

// The static-hosting rule files of a snapshot, in the format Cloudflare
// Pages and Netlify read.
const (
	FileHeaders   = "_headers"
	FileRedirects = "_redirects"
)

// FileAPIIndex is the API's index document (PathAPIIndex).
const FileAPIIndex = "api.json"

// The files of the model documents. The retirement calendar's names are
// one segment under DirModels, which no model's document can be (ModelFile
// is two): its JSON, and the same calendar as iCalendar (RFC 5545), which
// the site renders.
const (
	FileModels                   = "models.json"
	DirModels                    = "models"
	FileModelRetirements         = DirModels + "/retirements.json"
	FileModelRetirementsCalendar = DirModels + "/retirements.ics"
)

// ModelFile is the path of a model's document inside a snapshot.
func ModelFile(id string) string { return DirModels + "/" + id + ".json" }

// FileReliability is the snapshot file of api.ReliabilityDoc.
const FileReliability = "reliability.json"

// FileCatalog is the catalog the snapshot was built with (catalog.json's
// schema): the services, surfaces and models its documents speak of. A
// replica's /check matches and probes by it, not by its own built-in one.
// It holds no secret: a measured completion's key is named by its
// environment variable, never given.
const FileCatalog = "catalog.json"

// FileSituation is the snapshot's one answer about every subject
// (api.Situation): what the page, /metrics and the façade read their
// statuses from.
const FileSituation = "situation.json"
