package governance

import (
	"path"
	"strings"

	"github.com/paigasus/helikon/internal/shellmatch"
)

// linkKind says what a command makes at a destination.
type linkKind uint8

const (
	linkHard linkKind = iota // another name for the source file
	linkSym                  // a symbolic link to the source
	linkCopy                 // a copy or move that keeps a source that is a link a link
)

// linkOp is one link a command makes: link is the path it makes, target
// the path it leads to as the working directory sees it (a relative
// symbolic link's target is read from the link's directory), given the
// operand as written.
type linkOp struct {
	kind         linkKind
	link, target string
	given        string // the source operand as written
	dyn          bool   // the source is not known before the shell runs
}

// linkSpec returns the flags that take a value of a program that makes
// links, and whether it is one.
func linkSpec(program string) (argSpec, bool) {
	switch program {
	case "ln", "cp", "mv":
		return argSpec{short: "St", long: []string{"suffix", "target-directory"}}, true
	case "link":
		return argSpec{}, true
	case "rsync":
		return writeSpecs()["rsync"].spec, true
	}
	return argSpec{}, false
}

// linksOf calls fn with every link c makes: ln's (hard or symbolic, in
// every operand form: one operand, many into a directory, -t DIR,
// --target-directory=DIR), link's, cp -l/-s's, and the links a copy that
// keeps links makes of a source that is one (cp -P/-d/-a/-r/-R, mv,
// rsync -a/-l). Where a two-operand destination may be a directory, both
// the destination and the source's name beneath it are given.
func linksOf(c *shellmatch.Command, fn func(l linkOp)) {
	spec, ok := linkSpec(c.Program)
	if !ok {
		return
	}
	kind := linkCopy
	switch c.Program {
	case "ln":
		kind = linkHard
	case "link":
		kind = linkHard
	}
	var (
		ops      []string
		dyns     []bool
		dir      string
		noDir    bool // -T: the destination is the link itself
		relative bool // ln -r: targets are read from the working directory
		keeps    = c.Program == "mv"
		derefs   bool
	)
	scanArgs(c, spec, func(flag, val string, dyn bool) bool {
		switch {
		case flag == "":
			ops, dyns = append(ops, val), append(dyns, dyn)
		case flag == "t" || flag == "target-directory":
			dir = val
		case flag == "T" || long(flag, "no-target-directory"):
			noDir = true
		case c.Program == "ln" && (flag == "s" || long(flag, "symbolic")),
			c.Program == "cp" && (flag == "s" || long(flag, "symbolic-link")):
			kind = linkSym
		case c.Program == "cp" && (flag == "l" || long(flag, "link")):
			kind = linkHard
		case c.Program == "ln" && (flag == "r" || long(flag, "relative")):
			relative = true
		case c.Program == "cp" && (len(flag) == 1 && strings.Contains("PdarR", flag) || long(flag, "no-dereference") ||
			long(flag, "archive") || long(flag, "recursive") || long(flag, "preserve") && (strings.Contains(val, "links") || strings.Contains(val, "all"))):
			keeps = true
		case c.Program == "cp" && (flag == "L" || flag == "H" || long(flag, "dereference")):
			derefs = true
		case c.Program == "rsync" && (flag == "a" || flag == "l" || long(flag, "archive") || long(flag, "links")):
			keeps = true
		}
		return false
	})
	if kind == linkCopy && (!keeps || derefs) {
		return
	}
	if c.Program == "link" {
		noDir = true
	}
	srcs, dsts := ops, []string(nil)
	switch {
	case dir != "":
	case len(ops) == 1 && c.Program == "ln":
		dir = "."
	case len(ops) < 2:
		return
	case len(ops) == 2 && noDir:
		srcs, dsts = ops[:1], ops[1:]
	case len(ops) == 2:
		// A directory or the link itself: both.
		srcs, dsts = ops[:1], ops[1:]
		dir = ops[1]
	default:
		srcs, dir = ops[:len(ops)-1], ops[len(ops)-1]
	}
	emit := func(src string, dyn bool, link string) {
		if link != "" && strings.HasPrefix(src, "~") && path.Base(link) == path.Base(src) {
			// A link named after ~ or ~user is named after the home
			// directory the shell expands it to: not known here.
			dyn = true
		}
		l := linkOp{kind: kind, link: path.Clean(link), target: src, given: src, dyn: dyn}
		if kind == linkSym && !relative && !path.IsAbs(src) && !strings.HasPrefix(src, "~") {
			l.target = path.Join(path.Dir(l.link), src)
		}
		fn(l)
	}
	for i, src := range srcs {
		for _, d := range dsts {
			emit(src, dyns[i], d)
		}
		if dir != "" {
			emit(src, dyns[i], path.Join(dir, path.Base(path.Clean(src))))
		}
	}
}

// long reports whether flag, a long flag as written, names full or is a
// GNU abbreviation of it.
func long(flag, full string) bool {
	return len(flag) >= 2 && strings.HasPrefix(full, flag)
}

// linkWrites calls fn with the files a link made by c lets a later write
// change: the source of a hard link (another name for the same file, which
// no resolver can tell from a new file) and the target of a symbolic link,
// as given and as the link's directory reads it. Making such a link is
// checked as writing what it leads to: `ln .git/config c` is asked like a
// write to .git/config, `ln -s src s` is denied under DenyEdit("src/**").
func linkWrites(c *shellmatch.Command, fn func(p string, dyn bool) bool) bool {
	stop := false
	linksOf(c, func(l linkOp) {
		if stop || l.kind == linkCopy {
			return
		}
		stop = fn(l.given, l.dyn) || l.target != l.given && fn(l.target, l.dyn)
	})
	return stop
}

// linksTo reports whether a shell call makes a hard or symbolic link to a
// path match accepts.
func linksTo(v *callView, match func(p string) bool) bool {
	hit := false
	for _, s := range v.scripts() {
		for i := range s.Commands {
			linksOf(&s.Commands[i], func(l linkOp) {
				hit = hit || l.kind != linkCopy && !l.dyn && (match(l.given) || match(l.target))
			})
		}
	}
	return hit
}
