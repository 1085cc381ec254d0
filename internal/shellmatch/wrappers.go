package shellmatch

import (
	"slices"
	"strings"
)

// wrapperSpec describes a program that runs another program given as its
// operands: which of its flags take a value, how many operands come before
// the wrapped program, and whether NAME=VALUE words may precede it.
type wrapperSpec struct {
	// short lists the one-letter flags that take a value.
	short string
	// long lists the long flags that take a value when it is not attached
	// with "=".
	long []string
	// skip is the number of operands before the program (timeout's
	// duration, taskset's mask).
	skip int
	// assigns lets NAME=VALUE words precede the program (env, sudo).
	assigns bool
	// split names the flags whose value is itself a command string to
	// parse (env -S).
	split string
	// joinAll treats every remaining word, joined by blanks, as a command
	// string (eval).
	joinAll bool
}

var wrapperSpecs = map[string]wrapperSpec{
	"timeout": {short: "sk", long: []string{"signal", "kill-after"}, skip: 1},
	"nice":    {short: "n", long: []string{"adjustment"}},
	"nohup":   {},
	"stdbuf":  {short: "ioe", long: []string{"input", "output", "error"}},
	"env":     {short: "uCS", long: []string{"unset", "chdir", "split-string"}, assigns: true, split: "S"},
	"command": {},
	"builtin": {},
	"exec":    {short: "a"},
	"sudo": {short: "ughpCDrtTUR", long: []string{"user", "group", "host", "prompt", "close-from",
		"chdir", "role", "type", "command-timeout", "other-user", "chroot"}, assigns: true},
	"doas":    {short: "Cu"},
	"time":    {short: "fo", long: []string{"format", "output"}},
	"setsid":  {},
	"ionice":  {short: "cnp", long: []string{"class", "classdata", "pid"}},
	"chrt":    {skip: 1},
	"taskset": {skip: 1},
	"busybox": {},
	"xargs": {short: "adEILnPs", long: []string{"arg-file", "delimiter", "eof", "replace",
		"max-lines", "max-args", "max-procs", "max-chars", "process-slot-var"}},
	"eval": {joinAll: true},
}

// strip removes the wrapper's flags and leading operands from args and
// returns the words of the wrapped command. For a wrapper whose operand is a
// command string (env -S, eval), it returns that string instead, and whether
// it was a plain literal.
func (w wrapperSpec) strip(args []word) (rest []word, nested *string, nestedLit bool) {
	if w.joinAll {
		var b strings.Builder
		lit := true
		for i, a := range args {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(a.text)
			lit = lit && a.lit
		}
		if len(args) == 0 {
			return nil, nil, false
		}
		s := b.String()
		return nil, &s, lit
	}
	i := 0
	skipped := 0
	for i < len(args) {
		a := args[i]
		if !a.lit {
			return args[i:], nil, false
		}
		t := a.text
		switch {
		case t == "--":
			i++
			goto operands
		case strings.HasPrefix(t, "--"):
			name, _, attached := strings.Cut(t[2:], "=")
			takes := slices.Contains(w.long, name)
			if takes && name == "split-string" && w.split != "" {
				if attached {
					v := t[strings.IndexByte(t, '=')+1:]
					return nil, &v, true
				}
				if i+1 < len(args) {
					v := args[i+1]
					return nil, &v.text, v.lit
				}
			}
			i++
			if takes && !attached {
				i++
			}
			continue
		case len(t) > 1 && t[0] == '-':
			i++
			for j := 1; j < len(t); j++ {
				if strings.IndexByte(w.short, t[j]) < 0 {
					continue
				}
				// A value flag takes the rest of the cluster, or the next word.
				if strings.IndexByte(w.split, t[j]) >= 0 {
					if j+1 < len(t) {
						v := t[j+1:]
						return nil, &v, true
					}
					if i < len(args) {
						v := args[i]
						return nil, &v.text, v.lit
					}
				}
				if j+1 == len(t) {
					i++
				}
				break
			}
			continue
		case w.assigns && isAssignment(t):
			i++
			continue
		}
		break
	}
operands:
	i = min(i, len(args)) // a value flag at the end has no value to skip
	for i < len(args) && skipped < w.skip {
		i++
		skipped++
	}
	for w.assigns && i < len(args) && args[i].lit && isAssignment(args[i].text) {
		i++
	}
	return args[i:], nil, false
}

// isAssignment reports whether t has the form NAME=VALUE or NAME+=VALUE.
func isAssignment(t string) bool {
	eq := strings.IndexByte(t, '=')
	if eq <= 0 {
		return false
	}
	if t[eq-1] == '+' {
		eq--
	}
	if eq == 0 {
		return false
	}
	for i := 0; i < eq; i++ {
		c := t[i]
		if c != '_' && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && !(i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// shellSpec describes a program that runs a command string given with -c.
type shellSpec struct {
	// valueFlags lists the one-letter flags that take a value.
	valueFlags string
	// longValue lists the long flags that take a value.
	longValue []string
	// cTakesValue: -c takes the command string as its value, wherever it
	// appears (su), rather than marking the first operand as one (sh).
	cTakesValue bool
}

var (
	posixShell = shellSpec{valueFlags: "oO", longValue: []string{"rcfile", "init-file"}}
	shellSpecs = map[string]shellSpec{
		"sh": posixShell, "bash": posixShell, "dash": posixShell, "zsh": posixShell,
		"ksh": posixShell, "mksh": posixShell, "ash": posixShell, "fish": posixShell,
		"su": {valueFlags: "sgG", longValue: []string{"shell", "group", "supp-group", "whitelist-environment"}, cTakesValue: true},
	}
)

// commandString finds the command string a shell runs with -c.
func (sh shellSpec) commandString(args []word) (cmd string, lit, found bool) {
	hasC := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.text
		if !a.lit || len(t) < 2 || (t[0] != '-' && t[0] != '+') || t == "--" {
			if t == "--" && a.lit {
				if hasC && i+1 < len(args) {
					return args[i+1].text, args[i+1].lit, true
				}
				return "", false, false
			}
			if hasC && !sh.cTakesValue {
				return t, a.lit, true
			}
			continue
		}
		if strings.HasPrefix(t, "--") {
			name, v, attached := strings.Cut(t[2:], "=")
			if name == "command" && sh.cTakesValue {
				if attached {
					return v, true, true
				}
				if i+1 < len(args) {
					return args[i+1].text, args[i+1].lit, true
				}
			}
			if slices.Contains(sh.longValue, name) && !attached {
				i++
			}
			continue
		}
		for j := 1; j < len(t); j++ {
			switch {
			case t[j] == 'c' && sh.cTakesValue:
				if j+1 < len(t) {
					return t[j+1:], true, true
				}
				if i+1 < len(args) {
					return args[i+1].text, args[i+1].lit, true
				}
				return "", false, false
			case t[j] == 'c':
				hasC = true
			case strings.IndexByte(sh.valueFlags, t[j]) >= 0:
				if j+1 == len(t) {
					i++
				}
				j = len(t)
			}
		}
	}
	return "", false, false
}

// IsShell reports whether program is a shell the matcher follows into with
// -c. Such a shell with a dynamic command runs what its words do not show.
func IsShell(program string) bool {
	_, ok := shellSpecs[program]
	return ok
}
