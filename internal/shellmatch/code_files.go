package shellmatch

import (
	"path"
	"slices"
	"strings"
	"sync"
)

// CodeFile is a file a command runs, or reads as code.
type CodeFile struct {
	// Path is the file as the command names it, relative to the
	// command's working directory unless absolute. For a module
	// (python -m) it is the module's first component, which names a
	// file or a package directory of the working directory.
	Path string
	// Module reports that Path is a module name: Path.py or a directory
	// Path.
	Module bool
	// Dynamic reports that the word is not known before the shell runs,
	// or names whatever a wrapper found ({} of find -exec and xargs -I).
	Dynamic bool
}

// CodeFiles calls fn with the files c runs as code: the program itself
// when its word names a file by path (./x.sh, bin/tool), the script
// operand of a shell (bash x.sh) or an interpreter (python3 x.py, node
// x.js, awk -f x.awk), the module of python -m, the file source and .
// read, and the makefiles make reads (-f, or the default names under -C).
// It stops when fn returns true and reports whether it did. Code a
// command finds by itself (go test, npm scripts, git hooks) is not
// reported.
func (c *Command) CodeFiles(fn func(CodeFile) bool) bool {
	if strings.Contains(c.Path, "/") && fn(CodeFile{Path: c.Path}) {
		return true
	}
	arg := func(i int) CodeFile {
		return CodeFile{Path: c.Args[i], Dynamic: c.ArgDynamic(i) || strings.Contains(c.Args[i], "{}")}
	}
	name := c.Program
	switch {
	case name == "":
		return false
	case sourceCommands()[name]:
		for i, a := range c.Args {
			if a == "--" && i == 0 {
				continue
			}
			return fn(arg(i))
		}
	case name == "make" || name == "gmake" || name == "bmake" || name == "pmake":
		return c.makefiles(fn)
	case name == "node" || name == "nodejs":
		if c.flagFiles(codeFlagFiles()["node"], fn) {
			return true
		}
		if in, _, ok := interpreterOf(name); ok {
			return c.interpreterScript(in, fn, arg)
		}
	case codeFlagFiles()[name].short != "":
		return c.flagFiles(codeFlagFiles()[name], fn)
	case IsShell(name) && name != "su" && name != "runuser":
		return c.shellScript(fn, arg)
	default:
		if in, _, ok := interpreterOf(name); ok {
			return c.interpreterScript(in, fn, arg)
		}
	}
	return false
}

// shellScript reports the script operand of a shell run without -c, and
// the start-up file --rcfile/--init-file names.
func (c *Command) shellScript(fn func(CodeFile) bool, arg func(int) CodeFile) bool {
	for i := 0; i < len(c.Args); i++ {
		t := c.Args[i]
		switch {
		case t == "--":
			return i+1 < len(c.Args) && fn(arg(i+1))
		case t == "--rcfile" || t == "--init-file":
			if i+1 < len(c.Args) && fn(arg(i+1)) {
				return true
			}
			i++
		case strings.HasPrefix(t, "--"):
		case len(t) > 1 && (t[0] == '-' || t[0] == '+'):
			if strings.ContainsAny(t[1:], "oO") && i+1 < len(c.Args) {
				i++ // -o OPTION, -O SHOPT
			}
		default:
			return fn(arg(i))
		}
	}
	return false
}

// interpreterScript reports the file an interpreter runs: its script
// operand, the module of -m, or an awk program file (-f). Inline code (-c,
// -e) runs no file.
func (c *Command) interpreterScript(in interpreter, fn func(CodeFile) bool, arg func(int) CodeFile) bool {
	args := c.Args
	if len(args) == 1 && infoFlags()[args[0]] {
		return false
	}
	for i := 0; i < len(args); i++ {
		t := args[i]
		if t == "--" {
			return !in.program && i+1 < len(args) && fn(arg(i+1))
		}
		if !strings.HasPrefix(t, "-") || len(t) < 2 {
			if in.program {
				return false // the program text
			}
			return fn(arg(i))
		}
		if strings.HasPrefix(t, "--") {
			continue
		}
		for j := 1; j < len(t); j++ {
			ch := t[j]
			if strings.IndexByte(in.inline, ch) >= 0 {
				return false
			}
			value := func() (CodeFile, bool) {
				if j+1 < len(t) {
					return CodeFile{Path: t[j+1:], Dynamic: c.ArgDynamic(i)}, true
				}
				if i+1 < len(args) {
					i++
					return arg(i), true
				}
				return CodeFile{}, false
			}
			if strings.IndexByte(in.module, ch) >= 0 {
				v, ok := value()
				if !ok {
					return false
				}
				v.Module = true
				v.Path, _, _ = strings.Cut(v.Path, ".")
				return fn(v)
			}
			if in.program && ch == 'f' {
				if v, ok := value(); ok && fn(v) {
					return true
				}
				break
			}
			if strings.IndexByte(in.values, ch) >= 0 {
				if j+1 == len(t) && !(in.clusterValue && ch != 'I') {
					i++
				}
				break
			}
		}
	}
	return false
}

// fileFlags says which flags of a program name files it runs as code, and
// which files it reads when none does.
type fileFlags struct {
	short    string   // one-letter flags whose value is a code file
	long     []string // long flags whose value is a code file
	chdir    string   // the one-letter flag that changes directory first
	defaults []string // the files read when no flag names one
}

// codeFlagFiles are the programs besides make that run code from files a
// flag names: build tools (ninja -f, just -f, rake -f, and their default
// files), sed scripts (-f, which may run commands with e), and node's
// preloaded modules (-r, --require, --import).
var codeFlagFiles = sync.OnceValue(func() map[string]fileFlags {
	return map[string]fileFlags{
		"ninja": {short: "f", chdir: "C", defaults: []string{"build.ninja"}},
		"just":  {short: "f", long: []string{"justfile"}, defaults: []string{"justfile", "Justfile", ".justfile"}},
		"rake":  {short: "f", long: []string{"rakefile"}, chdir: "C", defaults: []string{"Rakefile", "rakefile", "Rakefile.rb", "rakefile.rb"}},
		"sed":   {short: "f", long: []string{"file"}},
		"node":  {short: "r", long: []string{"require", "import", "loader", "experimental-loader"}},
	}
})

// flagFiles reports the files the flags of spec name, or its default
// files (under the directory its chdir flag names) when none does.
func (c *Command) flagFiles(spec fileFlags, fn func(CodeFile) bool) bool {
	named, dir, dirDyn := false, "", false
	for i := 0; i < len(c.Args); i++ {
		t := c.Args[i]
		if t == "--" {
			break
		}
		value := func(v string, at int) (CodeFile, bool) {
			if v != "" {
				return CodeFile{Path: v, Dynamic: c.ArgDynamic(at)}, true
			}
			if i+1 < len(c.Args) {
				i++
				return CodeFile{Path: c.Args[i], Dynamic: c.ArgDynamic(i)}, true
			}
			return CodeFile{}, false
		}
		if long, ok := strings.CutPrefix(t, "--"); ok {
			name, v, _ := strings.Cut(long, "=")
			if slices.Contains(spec.long, name) {
				if f, ok := value(v, i); ok {
					named = true
					if fn(f) {
						return true
					}
				}
			}
			continue
		}
		if len(t) < 2 || t[0] != '-' {
			continue
		}
		for j := 1; j < len(t); j++ {
			ch := t[j]
			switch {
			case strings.IndexByte(spec.short, ch) >= 0:
				at := i
				if f, ok := value(t[j+1:], at); ok {
					named = true
					if fn(f) {
						return true
					}
				}
			case spec.chdir != "" && ch == spec.chdir[0]:
				at := i
				if f, ok := value(t[j+1:], at); ok {
					dir, dirDyn = f.Path, f.Dynamic
				}
			default:
				continue
			}
			break
		}
	}
	if named {
		return false
	}
	for _, d := range spec.defaults {
		p := d
		if dir != "" {
			p = path.Join(dir, d)
		}
		if fn(CodeFile{Path: p, Dynamic: dirDyn}) {
			return true
		}
	}
	return false
}

// makefiles reports the makefiles make reads: every -f, or the default
// names, under the -C directory.
func (c *Command) makefiles(fn func(CodeFile) bool) bool {
	dir, dirDyn := "", false
	var files []CodeFile
	args := c.Args
	for i := 0; i < len(args); i++ {
		t := args[i]
		var flag, val string
		dyn := c.ArgDynamic(i)
		switch {
		case t == "--":
			i = len(args)
			continue
		case strings.HasPrefix(t, "--"):
			name, v, attached := strings.Cut(t[2:], "=")
			switch name {
			case "file", "makefile":
				flag = "f"
			case "directory":
				flag = "C"
			default:
				continue
			}
			if attached {
				val = v
			} else if i+1 < len(args) {
				i++
				val, dyn = args[i], c.ArgDynamic(i)
			}
		case len(t) > 1 && t[0] == '-':
			k := 1
			for k < len(t) && strings.IndexByte("fCIoW", t[k]) < 0 {
				k++
			}
			if k == len(t) {
				continue
			}
			rest := t[k+1:]
			if rest == "" && i+1 < len(args) {
				i++
				rest, dyn = args[i], c.ArgDynamic(i)
			}
			if t[k] != 'f' && t[k] != 'C' {
				continue // -I DIR, -o FILE, -W FILE take a value too
			}
			flag, val = t[k:k+1], rest
		default:
			continue
		}
		if flag == "C" {
			dir, dirDyn = path.Join(dir, val), dirDyn || dyn
			if strings.HasPrefix(val, "/") {
				dir = val
			}
		} else {
			files = append(files, CodeFile{Path: val, Dynamic: dyn})
		}
	}
	if len(files) == 0 {
		files = []CodeFile{{Path: "GNUmakefile"}, {Path: "makefile"}, {Path: "Makefile"}}
	}
	for _, f := range files {
		if dir != "" && !strings.HasPrefix(f.Path, "/") {
			f.Path = path.Join(dir, f.Path)
		}
		f.Dynamic = f.Dynamic || dirDyn
		if fn(f) {
			return true
		}
	}
	return false
}
