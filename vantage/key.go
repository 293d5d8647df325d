package vantage

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
)

// KeyEnv is the environment variable that holds the vantage key: the
// build's, from which each vantage's own is derived (For), or a vantage
// replica's own. It is read from the environment only, never from a flag,
// so that it shows in no process list and no error that quotes a flag's
// value.
const KeyEnv = "AISTATUS_VANTAGE_KEY"

// MinKeyBytes is the shortest key taken: 32 bytes, the size of the
// HMAC-SHA256 it keys (openssl rand -hex 32 gives 64 characters).
const MinKeyBytes = 32

// ErrNoKey is Read's and Write's answer without a key: a report nobody can
// check is not written, and not believed.
var ErrNoKey = errors.New(KeyEnv + " is not set: vantage reports are neither written nor read without the key that signs them")

// Key signs and checks vantage reports (HMAC-SHA256). Its zero value is no
// key. It prints as a placeholder whatever the verb, and marshals to
// nothing, so that a logged or published value never carries the secret.
type Key struct{ secret []byte }

// ParseKey takes the key as KeyEnv holds it: "" is no key (the zero Key);
// a shorter one than MinKeyBytes is refused. The error never quotes it.
func ParseKey(s string) (Key, error) {
	if s == "" {
		return Key{}, nil
	}
	if len(s) < MinKeyBytes {
		return Key{}, fmt.Errorf("%s is shorter than %d bytes: give a random one of at least %d (openssl rand -hex 32)", KeyEnv, MinKeyBytes, MinKeyBytes)
	}
	return Key{secret: []byte(s)}, nil
}

// Set reports whether k is a key (not the zero Key).
func (k Key) Set() bool { return len(k.secret) > 0 }

// String hides the secret: "[set]" or "[none]".
func (k Key) String() string {
	if k.Set() {
		return "[set]"
	}
	return "[none]"
}

// GoString hides the secret from %#v too.
func (k Key) GoString() string { return "vantage.Key" + k.String() }

// MarshalText hides the secret from JSON and every text encoding.
func (k Key) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// signContext starts every signed message, so that a report's MAC is
// nothing else's should the key ever be used for more.
const signContext = "aistatus vantage report v1\n"

// mac is the HMAC-SHA256 of body under k.
func (k Key) mac(body []byte) []byte {
	m := hmac.New(sha256.New, k.secret)
	m.Write([]byte(signContext))
	m.Write(body)
	return m.Sum(nil)
}

// sign is body's MAC in hex.
func (k Key) sign(body []byte) string { return hex.EncodeToString(k.mac(body)) }

// keyContext starts the message a vantage's own key is derived from, so
// that no report's MAC is ever a key.
const keyContext = "aistatus vantage key v1\n"

// For is the key of the vantage of that name, derived from k (the
// build's): HMAC-SHA256 of the name under k, in hex. A vantage replica is
// given its own key, not the build's, so that whoever holds one replica's
// key can sign as that vantage and no other: the regional rule's "two
// other vantages reach the host" then needs two holders, not one.
// No key gives no key.
func (k Key) For(name string) Key {
	if !k.Set() {
		return Key{}
	}
	m := hmac.New(sha256.New, k.secret)
	m.Write([]byte(keyContext))
	m.Write([]byte(name))
	return Key{secret: []byte(hex.EncodeToString(m.Sum(nil)))}
}

// Reveal is the key as KeyEnv holds it, for the one place meant to print
// it: `aistatus vantage-key`, which gives a vantage its own.
func (k Key) Reveal() string { return string(k.secret) }

// verify reports whether sig is body's MAC under k, in constant time.
func (k Key) verify(body []byte, sig string) bool {
	got, err := hex.DecodeString(sig)
	return err == nil && hmac.Equal(got, k.mac(body))
}
