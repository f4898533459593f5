package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/deepresearch/deepresearch/config"
	"github.com/deepresearch/deepresearch/sqlitestore"
)

func init() { extraCommands = append(extraCommands, newStoreCmd) }

func newStoreCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "store",
		Short: "Look after the run store",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	var configFile string
	check := &cobra.Command{
		Use:   "check",
		Short: "Check the run store's integrity: every page, every index",
		Long: `check runs SQLite's full integrity check on the run store (store.path, or
--store) without changing it. Every command that writes the store runs the
quicker check when it opens it, and refuses a damaged store.

Exit status: 0 when the store is sound, 1 when it is damaged (the message
says what to do).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := settings(cmd, configFile)
			if err != nil {
				return err
			}
			path := storePath(s)
			if err := sqlitestore.Check(cmd.Context(), path); err != nil {
				return err
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "ok: %s passed the full integrity check\n", path)
			return err
		},
	}
	storeFlags(check, &configFile)
	cmd.AddCommand(check)
	return cmd
}

// readStore runs fn over the run store of the command's settings (its
// --config FILE), opened to read (openStoreToRead): a damaged store's
// error is returned with fn's, once fn has shown what it could.
func readStore(cmd *cobra.Command, configFile string, fn func(ctx context.Context, s config.Settings, st *sqlitestore.Store) error) (retErr error) {
	s, err := settings(cmd, configFile)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	st, damage, err := openStoreToRead(ctx, s)
	if err != nil {
		return err
	}
	defer st.Close()
	defer func() { retErr = errors.Join(retErr, damage) }()
	return fn(ctx, s, st)
}

// openStoreToRead opens the run store for a command that only reads it
// (runs, show). A damaged store is opened read-only, so that what can
// still be read is; damage is then the error that says so, for the
// command to return once it has shown what it could.
func openStoreToRead(ctx context.Context, s config.Settings) (st *sqlitestore.Store, damage error, err error) {
	st, err = openStore(ctx, s)
	if !errors.Is(err, sqlitestore.ErrCorrupt) {
		return st, nil, err
	}
	ro, rerr := sqlitestore.OpenReadOnly(ctx, storePath(s), sqlitestore.Options{})
	if rerr != nil {
		return nil, nil, err
	}
	return ro, err, nil
}
