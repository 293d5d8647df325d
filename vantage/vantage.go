// Package vantage is what replicas probing from their own place share with
// the builder through Redis: each replica started with `serve --vantage
// NAME` probes every tracked API host on a schedule (Prober) and writes one
// Report under its name with a short expiry (Write); a build with --redis
// reads the fresh ones (Read) and weighs them with its own probe.
//
// A report holds counts and latencies only: per probe URL, whether the host
// answered, how fast and when. No error text, no address, nothing a
// provider's answer carried.
package vantage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/redis/go-redis/v9"
)

// The Redis layout: one key per vantage holding its latest Report, expiring
// after the report's Fresh window, and one sorted set naming the vantages
// by the time of their latest report, so a build finds them without
// scanning the keyspace (which the rate limiter fills with a key per client).
const (
	KeyPrefix = "aistatus:vantage:"
	IndexKey  = "aistatus:vantages"
)

// Bounds of --vantage-every: shorter than the live-probe cache's 30 s would
// only read the cache again; longer than 10 minutes is too slow to tell a
// regional problem before the provider's page does.
const (
	MinEvery     = 30 * time.Second
	MaxEvery     = 10 * time.Minute
	DefaultEvery = time.Minute
)

// Builder is the builder's own vantage name when it is given none: a build
// probes too, and is one more vantage point.
const Builder = "builder"

// MaxVantages bounds the vantages a build reads: far more than any
// deployment needs, few enough that a Redis holding garbage cannot make a
// build read without end.
const MaxVantages = 256

// maxReport bounds one stored report: one with every tracked host is about
// 3 KB.
const maxReport = 256 << 10

// maxSkew is how far a result's time may be ahead of the reader's clock.
const maxSkew = 5 * time.Minute

// forgetAfter is when a vantage that stopped writing leaves the index.
const forgetAfter = time.Hour

var nameRE = regexp.MustCompile(`^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$`)

// ValidName checks a vantage name: a region or place name (eu-west-1, fra,
// us-east), lower-case letters, digits and inner hyphens, at most 32
// characters, so that it fits a Redis key, a metric label and a sentence.
func ValidName(name string) error {
	if !nameRE.MatchString(name) {
		return fmt.Errorf("vantage name %.40q: give a region or place name of 1 to 32 lower-case letters, digits and inner hyphens (e.g. eu-west-1)", name)
	}
	return nil
}

// Fresh is how long a vantage's results count, for a prober probing every
// every: two cycles (one late cycle is not a vanished vantage) and the age
// a result may already have when it is taken from the live-probe cache.
func Fresh(every time.Duration) time.Duration { return 2*every + 30*time.Second }

// Result is one probe of one host from one vantage.
type Result struct {
	// State is api.ProbeOK (the host answered below 500) or api.ProbeFailed.
	State string `json:"state"`
	// LatencyMs is the time to the answer's headers; absent when failed.
	LatencyMs *float64  `json:"latencyMs,omitempty"`
	At        time.Time `json:"at"`
}

// Report is a vantage's latest cycle: its results by probe URL.
type Report struct {
	Name string    `json:"name"`
	At   time.Time `json:"at"`
	// FreshSeconds is how long the results count (Fresh), and how long
	// Redis keeps the report.
	FreshSeconds int               `json:"freshSeconds"`
	Results      map[string]Result `json:"results"`
}

// Write stores r under its vantage's key for r.FreshSeconds and names it in
// the index, dropping from the index the vantages silent for an hour:
// three commands, one round trip.
func Write(ctx context.Context, rdb redis.Cmdable, r Report) error {
	body, err := json.Marshal(r)
	if err != nil {
		return err
	}
	_, err = rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, KeyPrefix+r.Name, body, time.Duration(r.FreshSeconds)*time.Second)
		p.ZAdd(ctx, IndexKey, redis.Z{Score: float64(r.At.Unix()), Member: r.Name})
		p.ZRemRangeByScore(ctx, IndexKey, "-inf", fmt.Sprint(r.At.Add(-forgetAfter).Unix()))
		return nil
	})
	return err
}

// Read returns the reports of the vantages that wrote within the last
// hour and whose report has not expired, two round trips whatever their
// number (up to MaxVantages). A report this program could not have written
// (not JSON of a report, another name than its key's, a state, latency or
// time out of range, too large) is left out and named in bad; Redis
// failing is the error.
func Read(ctx context.Context, rdb redis.Cmdable, now time.Time) (reports []Report, bad []string, err error) {
	names, err := rdb.ZRevRangeByScore(ctx, IndexKey, &redis.ZRangeBy{
		Min: fmt.Sprint(now.Add(-forgetAfter).Unix()), Max: "+inf", Count: MaxVantages,
	}).Result()
	if err != nil || len(names) == 0 {
		return nil, nil, err
	}
	keys := make([]string, len(names))
	for i, n := range names {
		keys[i] = KeyPrefix + n
	}
	values, err := rdb.MGet(ctx, keys...).Result()
	if err != nil {
		return nil, nil, err
	}
	for i, v := range values {
		s, ok := v.(string)
		if !ok {
			continue // expired: the vantage stopped probing
		}
		r, why := decode(names[i], s, now)
		if why != "" {
			bad = append(bad, fmt.Sprintf("%.40q: %s", names[i], why))
			continue
		}
		reports = append(reports, r)
	}
	return reports, bad, nil
}

// decode checks a stored report; why says what is wrong with it.
func decode(name, s string, now time.Time) (r Report, why string) {
	if len(s) > maxReport {
		return Report{}, fmt.Sprintf("%d bytes", len(s))
	}
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		return Report{}, "not JSON of a report"
	}
	switch {
	case ValidName(r.Name) != nil || r.Name != name:
		return Report{}, "another vantage's name"
	case r.FreshSeconds <= 0 || time.Duration(r.FreshSeconds)*time.Second > Fresh(MaxEvery):
		return Report{}, fmt.Sprintf("fresh for %d s", r.FreshSeconds)
	case r.At.Sub(now) > maxSkew:
		return Report{}, fmt.Sprintf("made at %v, ahead of this clock", r.At)
	}
	for url, res := range r.Results {
		if err := res.check(now); err != nil {
			return Report{}, fmt.Sprintf("%.80s: %v", url, err)
		}
	}
	return r, ""
}

func (res Result) check(now time.Time) error {
	switch {
	case res.State != api.ProbeOK && res.State != api.ProbeFailed:
		return fmt.Errorf("state %.20q", res.State)
	case res.LatencyMs != nil && !(*res.LatencyMs >= 0 && *res.LatencyMs <= 120_000):
		return errors.New("latency out of range")
	case res.At.IsZero() || res.At.Sub(now) > maxSkew:
		return fmt.Errorf("made at %v", res.At)
	}
	return nil
}
