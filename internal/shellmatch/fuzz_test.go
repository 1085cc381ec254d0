package shellmatch

import (
	"strings"
	"testing"
)

// bypassForms are the seed's deny-matching examples and the forms the seed
// lists as limitations, each with a slot for an arbitrary argument.
var bypassForms = []string{
	"echo %s && rm -rf .",
	"echo %s || rm -rf .",
	"echo %s; rm -rf .",
	"echo %s | rm -rf .",
	"echo %s & rm -rf .",
	"echo %s\nrm -rf .",
	"sudo rm -rf / %s",
	"timeout 5 nice -n 1 nohup env A=1 command rm %s",
	"bash -c %S",
	"sh -c %S",
	"echo $(rm -rf / %s)",
	"echo `rm -rf / %s`",
	"cat <(rm -rf / %s)",
	"(rm -rf / %s)",
	"{ rm -rf / %s; }",
	"eval rm -rf / %s",
	"find . -exec rm %s \\;",
	"xargs rm %s",
	"X=%s rm -rf /",
	"echo %s > $(rm -rf /)",
	"if true; then rm %s; fi",
	`bash -c "rm -rf $HOME" %s`,
	`eval "rm $X" %s`,
}

// fill puts arg into form: %s as one single-quoted word, %S as a quoted
// command string that itself runs rm after echoing arg.
func fill(form, arg string) string {
	if strings.Contains(form, "%S") {
		return strings.Replace(form, "%S", quote("echo "+quote(arg)+" && rm -rf /"), 1)
	}
	return strings.Replace(form, "%s", quote(arg), 1)
}

func runsRM(s *Script) bool {
	for _, c := range s.Commands {
		if c.Program == "rm" {
			return true
		}
	}
	return false
}

func FuzzParse_NoKnownBypass(f *testing.F) {
	for _, seed := range []string{"ok", "", "'", `"`, "$(x)", "`", "\\", "&& ls", "\n", "\x00", "--", "-c"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, arg string) {
		for _, form := range bypassForms {
			src := fill(form, arg)
			if s := Parse(src); !runsRM(s) && !s.Truncated {
				t.Fatalf("%q: rm not found in %+v", src, s.Commands)
			}
		}
	})
}

func FuzzParse_FastPathAgreesWithParser(f *testing.F) {
	for _, seed := range []string{"git status", "rm -rf /", "sudo -u root rm x", "timeout 5 rm", "env -S rm", "a=b c", "if x", "  ", "bash -c ls"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		fast := &Script{}
		fast.add(src, 0, nil)
		if _, ok := fastSplit(src); !ok {
			return
		}
		slow := &Script{}
		slow.addParsed(src, 0, nil)
		if !equalScripts(fast, slow) {
			t.Fatalf("%q: fast path %+v, parser %+v", src, fast, slow)
		}
	})
}

func FuzzParse_NeverPanics(f *testing.F) {
	for _, seed := range []string{"rm -rf /", "bash -c 'sh -c \"rm\"'", "$'\\x72m'", "a <<EOF\nrm\nEOF", "((1+", "${x:?}", "echo $((1/0))", "env -S", "su -c", "find -exec", "eval"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		s := Parse(src)
		for _, c := range s.Commands {
			if c.Program != "/" && strings.ContainsRune(c.Program, '/') {
				t.Fatalf("%q: program %q is not a base name", src, c.Program)
			}
		}
	})
}
