package governance

import (
	"context"
	"path"
	"strings"
	"sync"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/shellmatch"
)

// GuardRunWrittenFile names the guard [WithWrittenFileGuard] installs, in
// prompts and reasons.
const GuardRunWrittenFile = "run-written-file"

// The bounds of one run's record of written files: past either, every
// call that runs a file asks.
const (
	maxWrittenFiles = 4096
	maxWrittenBytes = 1 << 20
)

// WithWrittenFileGuard asks before a shell call runs a file the run wrote
// or changed: a script written by the Write tool or a redirect and then
// run with bash x.sh, ./x.sh, source x.sh, make -f x.mk, python3 x.py, …,
// also under env, exec, sudo, xargs or find -exec. A written script would
// otherwise carry past every shell rule, which reads the command line, not
// the file. The guard asks like a [GuardRule] with action [GuardAsk]:
// neither [PermissionBypass] nor an allow rule skips it.
//
// The run's written files are the paths every call it allowed writes, as
// the rules see them (the files of a [FileTool], the redirect targets and
// written operands of a shell call), with where they resolve through
// symlinks when the tool can tell ([FileAccess].Resolved, [PathResolver]).
// They are kept by the run's authorizer, which handoff targets and
// sub-agents share, and rebuilt from the calls of the conversation a run
// starts or resumes and of its session's log ([helikon.Recaller]), so a
// resumed run, or a later run on the same session, keeps them.
// What the guard cannot see — a program that writes another at run time,
// eval of a computed string, code a build tool finds by itself — is listed
// in docs/governance.md.
func WithWrittenFileGuard() helikon.ContextOption {
	return refine(func(s *settings) error { s.written = &writtenFiles{}; return nil })
}

// writtenGuard is what the permission pipeline asks of a run's
// written-file record, a *writtenFiles. The settings hold it as this
// interface so that only a program that calls [WithWrittenFileGuard]
// links the record and its recall (61 KB of a binary).
//
// done and runs take the call by value: a pointer passed through an
// interface escapes, and the pipeline's call view would then be allocated
// for every call, guarded or not (S2's 40 calls cost 40 more allocations
// at 4cb0e10).
type writtenGuard interface {
	// done notes a call the pipeline decided; runs names the files the
	// call would run that the run wrote, or returns "", and the id under
	// which it noted the call in flight (callView.pending).
	done(v callView, allowed bool)
	runs(v callView) (why string, pending uint64)
	recall(ctx context.Context, rc *helikon.RunContext, conv []helikon.Item, tools []helikon.Tool)
}

func (w *writtenFiles) done(v callView, allowed bool) { w.noteDone(&v, allowed) }

func (w *writtenFiles) runs(v callView) (string, uint64) {
	why := w.runsWritten(&v)
	return why, v.pending
}

// writtenFiles is one run's record of the files its calls wrote. Keys are
// cleaned and lower-cased (a false alarm on a case-sensitive disk, never a
// miss on a case-insensitive one).
type writtenFiles struct {
	mu    sync.Mutex
	paths map[string]struct{} // relative to the workspace, or absolute
	bases map[string]struct{} // the last component of every path, and of
	// writes whose directory is unknown (made after a cd)
	dirless map[string]struct{} // base names of writes whose directory is unknown
	globs   []string            // written paths holding glob characters
	abs     []string            // the absolute or ~ paths among paths
	n, size int
	full    bool // past the bounds: nothing more is recorded
	// ran, in the run's record, holds the files its allowed calls run.
	ran *writtenFiles
	// unknown says why a write's target is not known ("" when every one
	// is): a path named by an expansion, or the bounds passed.
	unknown string
	// inflight, in the run's record, holds what the calls being
	// authorized write (and, in their ran, run), by the id runs gave
	// them: the calls of one turn are authorized at once and recorded
	// only once allowed, so each check looks at the others too.
	inflight map[uint64]*pendingCall
	lastID   uint64
	// recalled, in the run's record, holds the keys ([callKey]) of the calls already
	// in it (allowed here, or read back by [settings.Recall]); unread the
	// calls read back whose tool was not known; logRead says the
	// session's log was read.
	recalled map[string]struct{}
	unread   []helikon.ToolUsePart
	// summaries holds the keys ([summaryKey]) of the compaction summaries
	// the session's log explains (it holds the calls before them), claimed
	// those the recalled conversations hold.
	summaries, claimed map[string]struct{}
	logRead            bool
	// reading counts the reads of the session's log under way, whose
	// calls are not in the record yet.
	reading int
}

// pendingCall is a call being authorized: what it writes, and what it
// runs, worked out when a call beside it is checked.
type pendingCall struct {
	v      callView
	writes *writtenFiles
	runs   *writtenFiles // nil until asked
}

// ran returns the files the call runs.
func (p *pendingCall) ran() *writtenFiles {
	if p.runs == nil {
		p.runs = &writtenFiles{}
		p.runs.addRuns(&p.v)
	}
	return p.runs.ran
}

// empty reports whether nothing was recorded.
func (w *writtenFiles) empty() bool { return w.n == 0 && w.unknown == "" && w.reading == 0 }

// add records one written path.
func (w *writtenFiles) add(p string, dirless bool) {
	if p == "" || w.full {
		return
	}
	if w.n >= maxWrittenFiles || w.size+len(p) > maxWrittenBytes {
		w.full = true
		w.unknown = "more than " + itoa(maxWrittenFiles) + " written files or " + itoa(maxWrittenBytes>>10) + " KiB of their paths"
		return
	}
	k := fileKey(p)
	w.n++
	w.size += len(k)
	base := path.Base(k)
	w.bases = setAdd(w.bases, base)
	switch {
	case dirless || climbs(k):
		w.dirless = setAdd(w.dirless, base)
	case hasGlob(k):
		w.globs = append(w.globs, k)
	default:
		w.paths = setAdd(w.paths, k)
		if strings.HasPrefix(k, "/") || strings.HasPrefix(k, "~") {
			w.abs = append(w.abs, k)
		}
	}
}

// setAdd adds k to set, made on first use: most records (a call's own)
// hold a path or two of one kind.
func setAdd(set map[string]struct{}, k string) map[string]struct{} {
	if set == nil {
		set = make(map[string]struct{}, 1)
	}
	set[k] = struct{}{}
	return set
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		if n /= 10; n == 0 {
			break
		}
	}
	return string(b[i:])
}

// fileKey is how a path is compared: cleaned, lower-cased, with a leading
// $HOME or ${HOME} spelled ~ (cp x $HOME/y, then bash ~/y).
func fileKey(p string) string {
	for _, home := range [...]string{"$HOME", "${HOME}"} {
		if rest, ok := strings.CutPrefix(p, home); ok && (rest == "" || rest[0] == '/') {
			p = "~" + rest
			break
		}
	}
	return strings.ToLower(path.Clean(p))
}

// climbs reports whether k, a cleaned relative path, leaves its working
// directory (../ws/x.sh): where it lands is not known, so it compares by
// name as a path after a cd does.
func climbs(k string) bool { return k == ".." || strings.HasPrefix(k, "../") }

// noContent are the programs among the writers whose writes leave no code
// behind to run: they remove files, make empty ones or change metadata.
var noContent = map[string]bool{"mkdir": true, "rmdir": true, "rm": true, "unlink": true, "shred": true, "chmod": true,
	"chown": true, "chgrp": true, "chattr": true, "setfacl": true, "touch": true, "truncate": true}

// done ends the authorization of v: it is no longer in flight, and what
// it writes and runs is recorded when it was allowed.
func (w *writtenFiles) noteDone(v *callView, allowed bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.inflight, v.pending)
	if allowed {
		if v.unreadable && (v.shell || v.file) && w.unknown == "" {
			// It ran (no rule was there to refuse it), and what it
			// wrote cannot be told.
			w.unknown = "a call of " + quoteReason(v.req.Tool) + " whose writes could not be read (" + v.why + ")"
		}
		w.addWrites(v)
		w.addRuns(v)
		w.recalled = setAdd(w.recalled, callKey(v.req.CallID, v.req.Tool, v.req.Args))
	}
}

// addRuns notes the files the call runs, for the check of a later write
// (the calls of one turn are authorized concurrently, so the write that
// leaves a script for a run in the same turn may come second).
func (w *writtenFiles) addRuns(v *callView) {
	if !v.shell {
		return
	}
	if w.ran == nil {
		w.ran = &writtenFiles{}
	}
	for _, s := range v.scripts() {
		moved := changesDir(s)
		for i := range s.Commands {
			s.Commands[i].CodeFiles(func(f shellmatch.CodeFile) bool {
				if f.Dynamic {
					return false
				}
				rel := moved && !path.IsAbs(f.Path)
				w.ran.add(f.Path, rel)
				if f.Module {
					w.ran.add(f.Path+".py", rel)
				}
				if v.res != nil && !rel {
					if r, err := v.res.ResolvePath(f.Path); err == nil && r != f.Path {
						w.ran.add(r, false)
					}
				}
				return false
			})
		}
	}
}

// addWrites adds what the call writes.
func (w *writtenFiles) addWrites(v *callView) {
	res, _ := v.req.Impl.(PathResolver)
	for _, f := range v.files {
		if f.Write {
			w.add(f.Path, false)
			w.add(f.Resolved, false)
		}
	}
	for _, s := range v.scripts() {
		moved := changesDir(s)
		for i := range s.Commands {
			c := &s.Commands[i]
			if noContent[c.Program] && len(c.Writes) == 0 {
				continue
			}
			each := func(p string, dyn bool) bool {
				if noContent[c.Program] && !contains(c.Writes, p) {
					return false
				}
				switch {
				case isStream(p):
				case dyn:
					if w.unknown == "" {
						w.unknown = "a write to " + quoteReason(p) + ", a path not known before the shell ran"
					}
				case moved && !path.IsAbs(p):
					w.add(p, true)
				default:
					w.add(p, false)
					if res != nil {
						if r, err := res.ResolvePath(p); err == nil && r != p {
							w.add(r, false)
						}
					}
				}
				return false
			}
			commandWrites(c, each)
			outputFlagWrites(c, each)
			implicitWrites(c, each)
		}
	}
}

// outputFlagWrites calls fn with the value of -o/--output of a program
// the write guards do not know (a compiler's output, say): for the record
// of written files only, where a false entry costs nothing.
func outputFlagWrites(c *shellmatch.Command, fn func(p string, dyn bool) bool) {
	if _, known := writeSpecs()[c.Program]; known || c.Program == "" {
		return
	}
	for i, a := range c.Args {
		switch {
		case (a == "-o" || a == "--output") && i+1 < len(c.Args):
			fn(c.Args[i+1], c.ArgDynamic(i+1))
		case strings.HasPrefix(a, "--output="):
			fn(a[len("--output="):], c.ArgDynamic(i))
		case len(a) > 2 && strings.HasPrefix(a, "-o") && a[2] != '-':
			fn(a[2:], c.ArgDynamic(i))
		}
	}
}

// implicitWrites calls fn with the files c writes under names its words
// do not spell, for the record only: a C compiler's a.out when no -o names
// the output, and a download whose file name the URL or the server picks
// (wget without -O, curl -O/-J) — recorded as a write not known before the
// shell runs.
func implicitWrites(c *shellmatch.Command, fn func(p string, dyn bool) bool) {
	name := c.Program
	if i := strings.LastIndexByte(name, '-'); i > 0 && isVersion(name[i+1:]) {
		name = name[:i] // gcc-12, clang-17
	}
	switch name {
	case "cc", "gcc", "clang", "c++", "g++", "clang++", "tcc", "c89", "c99", "gfortran":
		for _, a := range c.Args {
			if strings.HasPrefix(a, "-o") || a == "--output" || strings.HasPrefix(a, "--output=") || a == "-c" || a == "-S" || a == "-E" {
				return
			}
		}
		fn("a.out", false)
	case "wget", "curl":
		named := false
		for _, a := range c.Args {
			switch {
			case name == "wget" && (a == "--output-document" || strings.HasPrefix(a, "--output-document=") || a == "--spider"):
				return
			case name == "wget" && len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a, 'O'):
				return
			case name == "curl" && (a == "--remote-name" || a == "--remote-name-all" || a == "--remote-header-name"):
				named = true
			case name == "curl" && len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsAny(a, "OJ"):
				named = true
			}
		}
		if name == "wget" || named {
			fn(name+" saving under a name the URL or the server picks", true)
		}
	}
}

// isVersion reports whether s is a version suffix (12, 3.11).
func isVersion(s string) bool {
	return s != "" && strings.Trim(s, "0123456789.") == ""
}

// changesDir reports whether a command of s changes the working directory,
// after which its relative paths no longer start at the workspace.
func changesDir(s *shellmatch.Script) bool {
	for i := range s.Commands {
		switch s.Commands[i].Program {
		case "cd", "pushd", "popd":
			return true
		}
	}
	return false
}

// has reports whether the record holds p, a file a command runs, and
// whether the command's working directory is unknown (moved): then any
// written file of the same name counts.
func (w *writtenFiles) has(p string, moved bool) bool {
	k := fileKey(p)
	loose := moved && !path.IsAbs(k) || climbs(k)
	// The file, or a directory holding it (tar -C, cp -r, unzip -d).
	if _, ok := w.paths["."]; ok && !path.IsAbs(k) {
		return true
	}
	for q := k; ; {
		// Writes of no known directory, and every write when this
		// path's directory is not known either, match by the name of
		// the file or of a directory holding it.
		base := path.Base(q)
		if _, ok := w.dirless[base]; ok {
			return true
		}
		if _, ok := w.bases[base]; ok && loose {
			return true
		}
		if _, ok := w.paths[q]; ok && !loose {
			return true
		}
		i := strings.LastIndexByte(q, '/')
		if i <= 0 {
			break
		}
		q = q[:i]
	}
	// An absolute path may name a relative entry inside the workspace,
	// and a relative one an absolute entry.
	if path.IsAbs(k) {
		for i := 1; i < len(k); i++ {
			if k[i] == '/' {
				if _, ok := w.paths[k[i+1:]]; ok {
					return true
				}
			}
		}
	} else {
		for _, a := range w.abs {
			if strings.HasSuffix(a, "/"+k) {
				return true
			}
		}
	}
	for _, g := range w.globs {
		if ok, _ := path.Match(g, k); ok {
			return true
		}
	}
	if hasGlob(k) {
		for q := range w.paths {
			if ok, _ := path.Match(k, q); ok {
				return true
			}
		}
	}
	return false
}

// holds reports whether the record has a file beneath dir, a package
// directory python -m runs.
func (w *writtenFiles) holds(dir string) bool {
	prefix := fileKey(dir) + "/"
	for q := range w.paths {
		if strings.HasPrefix(q, prefix) {
			return true
		}
	}
	return false
}

// runs names the file written by the run, by a call being authorized
// beside it, or by the call itself (which writes before it runs) that the
// call runs, or says why it cannot tell; "" when it runs none. It notes v
// as in flight until [writtenFiles.done].
func (w *writtenFiles) runsWritten(v *callView) string {
	if !v.shell && !v.file {
		return ""
	}
	// What the call writes itself comes first: echo … > x.sh; bash x.sh.
	own := &writtenFiles{}
	own.addWrites(v)
	w.mu.Lock()
	defer w.mu.Unlock()
	sets := []*writtenFiles{w, own}
	var others []*pendingCall
	for id, o := range w.inflight {
		if id != v.pending {
			sets = append(sets, o.writes)
			others = append(others, o)
		}
	}
	if w.inflight == nil {
		w.inflight = map[uint64]*pendingCall{}
	}
	if v.pending == 0 {
		w.lastID++
		v.pending = w.lastID
	}
	w.inflight[v.pending] = &pendingCall{v: *v, writes: own}
	if len(own.paths) > 0 {
		ran := []*writtenFiles{w.ran}
		for _, o := range others {
			ran = append(ran, o.ran())
		}
		for _, r := range ran {
			if r == nil || r.empty() {
				continue
			}
			for k := range own.paths {
				if r.has(k, false) || r.holds(k) {
					return "it writes " + quoteReason(k) + ", which a call of this run runs (the calls of one turn run at once)"
				}
			}
		}
	}
	if !v.shell || v.nScripts == 0 {
		return ""
	}
	empty := true
	for _, set := range sets {
		empty = empty && set.empty()
	}
	if empty {
		return ""
	}
	res, _ := v.req.Impl.(PathResolver)
	why := ""
	for _, s := range v.scripts() {
		moved := changesDir(s)
		for i := range s.Commands {
			c := &s.Commands[i]
			if c.Path != "" && !strings.Contains(c.Path, "/") {
				// A program found on $PATH: written under a bin
				// directory outside the workspace.
				for _, set := range sets {
					for _, a := range set.abs {
						if path.Base(a) == strings.ToLower(c.Path) {
							why = "it runs " + quoteReason(c.Path) + ", and this run wrote " + quoteReason(a)
						}
					}
				}
			}
			c.CodeFiles(func(f shellmatch.CodeFile) bool {
				why = runsFile(sets, f, moved, res)
				return why != ""
			})
			if why != "" {
				return why
			}
		}
	}
	return ""
}

// runsFile checks one file a command runs against the sets of written
// files: the record, the call's own, the calls' in flight.
func runsFile(sets []*writtenFiles, f shellmatch.CodeFile, moved bool, res PathResolver) string {
	if f.Dynamic {
		return "it runs a file named by " + quoteReason(f.Path) + ", not known before the shell runs, and this run wrote files"
	}
	for _, set := range sets {
		if set.unknown != "" {
			return "it runs " + quoteReason(f.Path) + ", and this run made " + set.unknown
		}
		if set.reading > 0 {
			return "it runs " + quoteReason(f.Path) + " while the session's earlier calls, which may have written it, are still being read"
		}
	}
	names := [2]string{f.Path}
	if f.Module {
		names[1] = f.Path + ".py"
	}
	for _, set := range sets {
		if f.Module && set.holds(f.Path) {
			return "it runs module " + quoteReason(f.Path) + ", which this run wrote or changed"
		}
	}
	for _, p := range names {
		if p == "" {
			continue
		}
		forms := [2]string{p}
		if res != nil && !moved {
			r, err := res.ResolvePath(p)
			if err != nil {
				return "it runs " + quoteReason(p) + ", whose path cannot be resolved (" + err.Error() + "), and this run wrote files"
			}
			forms[1] = r
		}
		for _, q := range forms {
			for _, set := range sets {
				if q != "" && set.has(q, moved) {
					return "it runs " + quoteReason(p) + ", which this run wrote or changed"
				}
			}
		}
	}
	return ""
}
