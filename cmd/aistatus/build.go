package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build"
	"github.com/aistatus/aistatus/build/feed"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/notify"
	"github.com/aistatus/aistatus/outbound"
	"github.com/aistatus/aistatus/serve/shared"
	"github.com/aistatus/aistatus/vantage"
	"github.com/rs/zerolog"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// buildOptions are the flags of one build cycle, shared by build and run.
type buildOptions struct {
	out        string
	baseURL    string
	catalog    string
	timeout    time.Duration
	staleAfter time.Duration
	apiOrigin  string
	// notify are receivers of changes, each of the kind its URL shows;
	// notifyConfig a file of more, with kinds and filters. The Standard
	// Webhooks among them are signed with notifySecret.
	notify       []string
	notifyConfig string
	notifySecret string
	// completionEvery is the least time between two measured completions
	// of a service; 0: every cycle.
	completionEvery time.Duration
	// confirmReprobes and confirmSpacing are build.Confirm's.
	confirmReprobes int
	confirmSpacing  time.Duration
	// redis and vantage: read the vantages' results from Redis, the
	// builder being the vantage of that name (build's --redis and
	// --vantage; run takes serve's).
	redis   string
	vantage string
}

// registerVantages adds build's --redis and --vantage (run has serve's).
func (o *buildOptions) registerVantages(fs *pflag.FlagSet) {
	fs.StringVar(&o.redis, "redis", "", "Redis URL (redis://HOST:PORT/DB) the replicas run with --vantage write their probes to: the build weighs them with its own (a host failing from the builder while two other vantages reach it is a regional problem, not an outage); only reports signed with the key in $"+vantage.KeyEnv+" are believed, none without it")
	fs.StringVar(&o.vantage, "vantage", vantage.Builder, "with --redis: the builder's own vantage name, a region or place (e.g. eu-west-1)")
}

func (o *buildOptions) register(fs *pflag.FlagSet) {
	fs.StringVar(&o.out, "out", "public", "snapshot folder to write (and to read the previous history from)")
	fs.StringVar(&o.baseURL, "base-url", "http://localhost:8080", "public address of the site, used in openapi.json and attribution")
	fs.StringVar(&o.catalog, "catalog", "", "catalog JSON file (default: the embedded one; see 'aistatus catalog')")
	fs.DurationVar(&o.timeout, "timeout", 15*time.Second, "time limit for each service's feed and probe")
	fs.DurationVar(&o.staleAfter, "stale-after", 15*time.Minute, "age past which clients are told the data is stale")
	fs.StringVar(&o.apiOrigin, "api-origin", "", "thin server address the static-hosting _redirects proxy /check and filtered /incidents to")
	fs.StringArrayVar(&o.notify, "notify", nil, "where to send each change (repeatable): a Slack, Discord or Teams Workflows webhook URL or an https://ntfy.sh/<topic> gets one message a build; any other URL each change as a signed CloudEvent (Standard Webhooks)")
	fs.StringVar(&o.notifyConfig, "notify-config", "", "JSON file of notify destinations, each with its kind (slack, discord, teams, ntfy, webhook) and filter (services, surfaces, models, minStatus, minSeverity)")
	fs.StringVar(&o.notifySecret, "notify-secret", "", "Standard Webhooks signing secret for the --notify URLs that are Standard Webhooks, whsec_<base64>")
	fs.IntVar(&o.confirmReprobes, "confirm-reprobes", 2, "quick re-probes that confirm a failed probe within the cycle (each failure counts; 3 in a row are an outage)")
	fs.DurationVar(&o.confirmSpacing, "confirm-spacing", 3*time.Second, "wait before each confirming re-probe")
	fs.DurationVar(&o.completionEvery, "completion-every", 0, "least time between two measured completions of a service, when its key is set (0: every cycle)")
}

// notifier starts delivery to --notify and --notify-config's destinations,
// or returns nil without any. Deliveries are queued in memory: what is
// pending when the process ends is not delivered (receivers catch up from
// /changes).
func (o *buildOptions) notifier(ctx context.Context, log zerolog.Logger, cat catalog.Catalog) (*notify.Notifier, error) {
	var dests []notify.Destination
	if o.notifyConfig != "" {
		f, err := os.Open(o.notifyConfig)
		if err != nil {
			return nil, fmt.Errorf("--notify-config: %w", err)
		}
		dests, err = notify.ParseConfig(f, cat, os.Getenv)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("--notify-config %s: %w", o.notifyConfig, err)
		}
	}
	if len(o.notify) == 0 && len(dests) == 0 {
		return nil, nil
	}
	if o.notifySecret == "" && notify.NeedsSecret(o.notify, dests) {
		return nil, errors.New("--notify needs --notify-secret (or AISTATUS_NOTIFY_SECRET) to sign the webhooks (a URL that is no Slack, Discord, Teams or ntfy.sh one is a Standard Webhook; a --notify-config file can give another kind)")
	}
	return notify.New(ctx, notify.Options{
		URLs: o.notify, Destinations: dests, Secret: o.notifySecret, BaseURL: o.baseURL,
		Names: notify.SubjectNames(cat), Log: log,
	})
}

// notifyDrain bounds how long a one-shot build waits for its webhooks to
// be delivered after publishing.
const notifyDrain = 30 * time.Second

// defaultBaseURL derives --base-url from addr, the address the snapshot is
// served on, unless --base-url was given (on the command line or as
// AISTATUS_BASE_URL, which marks the flag as set): a fixed default would
// send every link and the attribution to the wrong port.
func (o *buildOptions) defaultBaseURL(fs *pflag.FlagSet, addr string) error {
	if fs.Changed("base-url") {
		return nil
	}
	u, err := baseURLFromAddr(addr)
	if err != nil {
		return err
	}
	o.baseURL = u
	return nil
}

// vantages checks --redis and --vantage and returns the reader of the
// vantages' results, nil without --redis. Without the key (vantage.KeyEnv)
// the reader reads nothing and says so in each cycle's sources.json; it
// is logged here, once.
func (o *buildOptions) vantages(log zerolog.Logger, now func() time.Time) (func(context.Context) (vantage.Reading, error), error) {
	if o.redis == "" {
		return nil, nil
	}
	if err := vantage.ValidName(o.vantage); err != nil {
		return nil, fmt.Errorf("--vantage: %w", err)
	}
	key, err := vantageKey()
	if err != nil {
		return nil, err
	}
	if !key.Set() {
		log.Error().Str("env", vantage.KeyEnv).Msg("vantage key not set: the build reads no vantage reports and weighs its own probe alone")
	}
	// The client lives as long as the process, like serve's.
	rdb, err := shared.NewRedisClient(o.redis)
	if err != nil {
		return nil, fmt.Errorf("--redis: %w", err)
	}
	return func(ctx context.Context) (vantage.Reading, error) {
		return vantage.Read(ctx, rdb, key, now())
	}, nil
}

// vantageKey is the key in vantage.KeyEnv, the zero Key when it is unset
// or empty. The key comes from the environment only: a flag's value shows
// in the process list, and a bad one is quoted in applyEnv's error.
func vantageKey() (vantage.Key, error) {
	return vantage.ParseKey(os.Getenv(vantage.KeyEnv))
}

// options turns the flags into build.Options.
func (o *buildOptions) options(log zerolog.Logger, cat catalog.Catalog) (build.Options, error) {
	read, err := o.vantages(log, time.Now)
	if err != nil {
		return build.Options{}, err
	}
	return build.Options{
		Out: o.out,
		Site: build.Site{
			BaseURL:    o.baseURL,
			StaleAfter: o.staleAfter,
			Generator:  "aistatus " + versionString(),
			APIOrigin:  o.apiOrigin,
		},
		Catalog:     cat,
		Timeout:     o.timeout,
		Client:      outbound.NewClient(outbound.Options{AllowedURLs: outbound.CatalogURLs(cat)}),
		Now:         time.Now,
		Log:         log,
		Adapters:    feed.Adapters(),
		Completions: o.completions(cat, log),
		Confirm:     build.Confirm{Reprobes: max(0, o.confirmReprobes), Spacing: max(0, o.confirmSpacing)},
		Vantages:    read,
		Vantage:     o.vantage,
	}, nil
}

func newBuildCmd(g *globals) *cobra.Command {
	var o buildOptions
	cmd := &cobra.Command{
		Use:   "build",
		Short: "Run one cycle: probe every service and publish a new snapshot",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runBuild(cmd.Context(), g, &o)
		},
	}
	o.register(cmd.Flags())
	o.registerVantages(cmd.Flags())
	return cmd
}

func runBuild(ctx context.Context, g *globals, o *buildOptions) error {
	log, err := g.logger()
	if err != nil {
		return err
	}
	cat, err := catalog.Load(o.catalog)
	if err != nil {
		return err
	}
	opts, err := o.options(log, cat)
	if err != nil {
		return err
	}
	notifier, err := o.notifier(ctx, log, cat)
	if err != nil {
		return err
	}
	opts.Notifier = notifier
	res, err := build.Build(ctx, opts)
	if notifier != nil {
		// The snapshot is published (or the build failed) before this wait:
		// it only keeps the process alive for the queued deliveries.
		drain, cancel := context.WithTimeout(context.WithoutCancel(ctx), notifyDrain)
		notifier.Close(drain)
		cancel()
	}
	if err != nil {
		return err
	}
	log.Info().Str("out", o.out).Str("summary", summarise(res.Statuses)).Msg("snapshot published")
	return nil
}

// summarise counts statuses for a log line: "operational=20 unknown=6".
func summarise(statuses map[string]api.Status) string {
	counts := map[api.Status]int{}
	for _, s := range statuses {
		counts[s]++
	}
	out := ""
	for _, s := range api.Statuses {
		if counts[s] > 0 {
			out += fmt.Sprintf("%s=%d ", s, counts[s])
		}
	}
	return out
}
