package cli

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
)

//go:embed sample
var sample embed.FS

func newInitCommand(o *options) *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Write a sample agents.toml, Starlark tool, mock scripts and eval cases",
		Long: `init writes a ready sample into DIR (default: the current directory):
agents.toml with a triage agent handing off to a budgeting agent, the
lookup_spending Starlark tool, the mock scripts both agents replay (so no API
key is needed) and an eval dataset. It refuses to overwrite files unless
--force is given.`,
		Example: `  helikon init && helikon run --agent triage "How much did I spend in January?"`,
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			return writeSample(dir, force, o.io.Out)
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "overwrite existing files")
	return cmd
}

func writeSample(dir string, force bool, out interface{ Write([]byte) (int, error) }) error {
	var files []string
	err := fs.WalkDir(sample, "sample", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files = append(files, p)
		return nil
	})
	if err != nil {
		return err
	}
	if !force {
		for _, p := range files {
			dst := filepath.Join(dir, p[len("sample/"):])
			if _, err := os.Stat(dst); err == nil {
				return fmt.Errorf("%s already exists: pass --force to overwrite it", dst)
			} else if !errors.Is(err, os.ErrNotExist) {
				return err
			}
		}
	}
	for _, p := range files {
		dst := filepath.Join(dir, p[len("sample/"):])
		data, err := sample.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return err
		}
		fmt.Fprintln(out, "wrote", dst)
	}
	fmt.Fprintln(out, `try: helikon run --agent triage "How much did I spend in January?"`)
	return nil
}
