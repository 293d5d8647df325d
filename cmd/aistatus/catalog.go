package main

import (
	"github.com/aistatus/aistatus/catalog"
	"github.com/spf13/cobra"
)

func newCatalogCmd(g *globals) *cobra.Command {
	var path string
	cmd := &cobra.Command{
		Use:   "catalog",
		Short: "Print the effective catalog as JSON (the shape --catalog reads)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cat, err := catalog.Load(path)
			if err != nil {
				return err
			}
			_, err = g.stdout.Write(cat.JSON())
			return err
		},
	}
	cmd.Flags().StringVar(&path, "catalog", "", "catalog JSON file to validate and print (default: the embedded one)")
	return cmd
}
