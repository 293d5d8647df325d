package main

import (
	"errors"
	"fmt"

	"github.com/aistatus/aistatus/vantage"
	"github.com/spf13/cobra"
)

// newVantageKeyCmd prints a vantage's own key, derived from the build's
// (vantage.Key.For): the key a replica started with --vantage NAME is
// given in its own AISTATUS_VANTAGE_KEY, so that it can sign as that
// vantage and no other. It reads the build's key from the environment,
// as build does, and prints only the derived one.
func newVantageKeyCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "vantage-key NAME",
		Short: "Print the vantage NAME's own key, derived from the build's in " + vantage.KeyEnv,
		Long: "Print the key a replica started with `serve --vantage NAME` signs its reports with, derived from the build's key in " +
			vantage.KeyEnv + ". Give each replica its own, never the build's: a report signed with the build's key is not believed.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			if err := vantage.ValidName(name); err != nil {
				return err
			}
			key, err := vantageKey()
			if err != nil {
				return err
			}
			if !key.Set() {
				return errors.New(vantage.KeyEnv + " is not set: give the build's key, from which each vantage's own is derived")
			}
			_, err = fmt.Fprintln(g.stdout, key.For(name).Reveal())
			return err
		},
	}
}
