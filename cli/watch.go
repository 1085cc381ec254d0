package cli

import (
	"context"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// watch reloads the sidecar when anything in its directory, or in the
// directories of the files it references, changes and then stays quiet
// for [reloadDebounce]. The goroutine it starts is owned by wg and ends
// with ctx.
func (r *repl) watch(ctx context.Context, wg *sync.WaitGroup) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	watched := map[string]bool{}
	addDirs := func() {
		f := r.defs.Load()
		for _, p := range append([]string{f.Path}, f.Files...) {
			d, err := filepath.Abs(filepath.Dir(p))
			if err != nil || watched[d] {
				continue
			}
			if w.Add(d) == nil {
				watched[d] = true
			}
		}
	}
	addDirs()
	wg.Go(func() {
		defer w.Close()
		timer := time.NewTimer(time.Hour)
		timer.Stop()
		defer timer.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if ev.Has(fsnotify.Chmod) && !ev.Has(fsnotify.Write) {
					continue
				}
				timer.Reset(reloadDebounce)
			case err, ok := <-w.Errors:
				if !ok {
					return
				}
				r.con.notify("helikon: watching the sidecar: %v", err)
			case <-timer.C:
				r.reload(r.con.notify)
				addDirs()
			}
		}
	})
	return nil
}
