// Package vantage is what replicas probing from their own place share with
// the builder through Redis: each replica started with `serve --vantage
// NAME` probes every tracked API host on a schedule (Prober) and writes one
// Report under its name with a short expiry (Write); a build with --redis
// reads the fresh ones (Read) and weighs them with its own probe.
//
// A report holds counts and latencies only: per probe URL, whether the host
// answered, how fast and when. No error text, no address, nothing a
// provider's answer carried.
//
// Every report is signed (HMAC-SHA256) with a Key the build and the
// replicas share (KeyEnv): whoever can write to Redis but holds no key can
// delete or withhold reports, never make one the build believes.
package vantage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
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

// maxSkew is how far a report's or a result's time, or an index entry's
// score, may be ahead of the reader's clock: the clocks of machines kept by
// NTP differ by well under a second. Anything further ahead is a clock gone
// wrong or a writer lying, and is dropped: a score in the future would
// otherwise keep its entry first in the index for as long as it likes.
const maxSkew = time.Minute

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

// signed is what a vantage's key holds: the report's JSON as signed, and
// its MAC under the shared Key.
type signed struct {
	Sig    string          `json:"sig"`
	Report json.RawMessage `json:"report"`
}

// Write signs r with key, the vantage's own (Key.For), and stores it under its vantage's key for
// r.FreshSeconds, and names it in the index, dropping from the index the
// vantages silent for an hour and the entries scored ahead of r's time
// (no writer of this program makes those): four commands, one round trip.
// Without a key it writes nothing (ErrNoKey).
func Write(ctx context.Context, rdb redis.Cmdable, key Key, r Report) error {
	if !key.Set() {
		return ErrNoKey
	}
	report, err := json.Marshal(r)
	if err != nil {
		return err
	}
	body, err := json.Marshal(signed{Sig: key.sign(report), Report: report})
	if err != nil {
		return err
	}
	_, err = rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, KeyPrefix+r.Name, body, time.Duration(r.FreshSeconds)*time.Second)
		p.ZAdd(ctx, IndexKey, redis.Z{Score: float64(r.At.Unix()), Member: r.Name})
		p.ZRemRangeByScore(ctx, IndexKey, "-inf", score(r.At.Add(-forgetAfter)))
		p.ZRemRangeByScore(ctx, IndexKey, "("+score(r.At.Add(maxSkew)), "+inf")
		return nil
	})
	return err
}

// score is t as an index score: its Unix second.
func score(t time.Time) string { return strconv.FormatInt(t.Unix(), 10) }

// Reading is what Read found: the reports it believes, and how many it
// dropped and why.
type Reading struct {
	Reports []Report
	Dropped api.VantageDropped
	// Bad names each invalid report (Dropped.Invalid), and each signed
	// with the build's own key (counted in Dropped.BadSignature), and what
	// is wrong with it, for the log.
	Bad []string
}

// Read returns the reports of the vantages that wrote within the last
// hour and whose report has not expired, two round trips whatever their
// number (up to MaxVantages). key is the build's; only a report signed
// with its vantage's own key (key.For(name)) is believed:
// one unsigned, wrongly signed, dated ahead of now (maxSkew), or that
// this program could not have written (not JSON of a report, another name
// than its key's, a state, latency or time out of range, too large) is
// left out and counted in the Reading's Dropped. The index is read by
// score up to now, so entries scored in the future (counted as Future)
// cannot take the places of the vantages that report. Redis failing is
// the error, and so is no key (ErrNoKey, before asking Redis anything).
func Read(ctx context.Context, rdb redis.Cmdable, key Key, now time.Time) (Reading, error) {
	var out Reading
	if !key.Set() {
		return out, ErrNoKey
	}
	latest := score(now.Add(maxSkew))
	var names *redis.StringSliceCmd
	var ahead *redis.IntCmd
	_, err := rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		names = p.ZRevRangeByScore(ctx, IndexKey, &redis.ZRangeBy{
			Min: score(now.Add(-forgetAfter)), Max: latest, Count: MaxVantages,
		})
		ahead = p.ZCount(ctx, IndexKey, "("+latest, "+inf")
		return nil
	})
	if err != nil {
		return out, err
	}
	out.Dropped.Future = int(ahead.Val())
	if len(names.Val()) == 0 {
		return out, nil
	}
	keys := make([]string, len(names.Val()))
	for i, n := range names.Val() {
		keys[i] = KeyPrefix + n
	}
	values, err := rdb.MGet(ctx, keys...).Result()
	if err != nil {
		return out, err
	}
	for i, v := range values {
		s, ok := v.(string)
		if !ok {
			continue // expired: the vantage stopped probing
		}
		name := names.Val()[i]
		r, drop, why := decode(key, name, s, now)
		switch drop {
		case "":
			out.Reports = append(out.Reports, r)
		case dropUnsigned:
			out.Dropped.Unsigned++
		case dropBadSignature:
			out.Dropped.BadSignature++
			if why != "" {
				out.Bad = append(out.Bad, fmt.Sprintf("%.40q: %s", name, why))
			}
		case dropFuture:
			out.Dropped.Future++
		default:
			out.Dropped.Invalid++
			out.Bad = append(out.Bad, fmt.Sprintf("%.40q: %s", name, why))
		}
	}
	return out, nil
}

// sharedKey is why a report signed with the build's own key is dropped.
const sharedKey = "signed with the build's own key, which a vantage must not hold: give it its own (aistatus vantage-key NAME)"

// Why decode drops a report.
const (
	dropUnsigned     = "unsigned"
	dropBadSignature = "bad signature"
	dropFuture       = "future"
	dropInvalid      = "invalid"
)

// decode checks a stored report's signature, then the report: drop says
// why it is dropped ("" when it is not), why what is wrong with an invalid
// one.
func decode(key Key, name, s string, now time.Time) (r Report, drop, why string) {
	if len(s) > maxReport {
		return Report{}, dropInvalid, fmt.Sprintf("%d bytes", len(s))
	}
	var env signed
	if err := json.Unmarshal([]byte(s), &env); err != nil {
		return Report{}, dropInvalid, "not JSON of a signed report"
	}
	if env.Sig == "" || len(env.Report) == 0 {
		return Report{}, dropUnsigned, ""
	}
	if !key.For(name).verify(env.Report, env.Sig) {
		if key.verify(env.Report, env.Sig) {
			// Signed with the build's own key: the replica was given it,
			// and could sign as any vantage.
			return Report{}, dropBadSignature, sharedKey
		}
		return Report{}, dropBadSignature, ""
	}
	if err := json.Unmarshal(env.Report, &r); err != nil {
		return Report{}, dropInvalid, "not JSON of a report"
	}
	switch {
	case ValidName(r.Name) != nil || r.Name != name:
		return Report{}, dropInvalid, "another vantage's name"
	case r.FreshSeconds <= 0 || time.Duration(r.FreshSeconds)*time.Second > Fresh(MaxEvery):
		return Report{}, dropInvalid, fmt.Sprintf("fresh for %d s", r.FreshSeconds)
	case r.At.Sub(now) > maxSkew:
		return Report{}, dropFuture, ""
	}
	for url, res := range r.Results {
		if res.At.Sub(now) > maxSkew {
			return Report{}, dropFuture, ""
		}
		if err := res.check(); err != nil {
			return Report{}, dropInvalid, fmt.Sprintf("%.80s: %v", url, err)
		}
	}
	return r, "", ""
}

func (res Result) check() error {
	switch {
	case res.State != api.ProbeOK && res.State != api.ProbeFailed:
		return fmt.Errorf("state %.20q", res.State)
	case res.LatencyMs != nil && !(*res.LatencyMs >= 0 && *res.LatencyMs <= 120_000):
		return errors.New("latency out of range")
	case res.At.IsZero():
		return errors.New("no time")
	}
	return nil
}
