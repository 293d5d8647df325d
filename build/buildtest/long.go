//go:build long

package buildtest

// Long is true in a run built with -tags long: the fault and soak tests
// then run their full count of rounds (CI runs them so once), and a fixed
// few otherwise, so that the suite answers in about two minutes.
const Long = true
