package governance

import (
	"path"
	"strings"
	"sync"

	"github.com/paigasus/helikon/internal/shellmatch"
)

// argSpec is what the write guards need to know of a program's flags:
// which take a value, so operands are told from flag values.
type argSpec struct {
	short string   // one-letter flags that take a value
	long  []string // long flags that take a value
}

// scanArgs walks args as GNU getopt would, calling fn with each operand
// (flag "") and each flag's value (flag its one-letter or long name, GNU
// abbreviations of the value-taking long flags expanded; another long flag
// comes as written, with its attached value if any). It stops when fn returns true and reports
// whether it did.
func scanArgs(c *shellmatch.Command, spec argSpec, fn func(flag, val string, dyn bool) bool) bool {
	args := c.Args
	for i := 0; i < len(args); i++ {
		a := args[i]
		dyn := c.ArgDynamic(i)
		switch {
		case a == "--":
			for j := i + 1; j < len(args); j++ {
				if fn("", args[j], c.ArgDynamic(j)) {
					return true
				}
			}
			return false
		case strings.HasPrefix(a, "--"):
			name, val, attached := strings.Cut(a[2:], "=")
			full := longName(spec.long, name)
			if full == "" {
				// A flag that takes no value of its own here, or one whose
				// value is attached (--preserve=links): never an operand.
				if fn(name, val, dyn) {
					return true
				}
				continue
			}
			if attached {
				if fn(full, val, dyn) {
					return true
				}
				continue
			}
			if full != "" && i+1 < len(args) {
				i++
				if fn(full, args[i], c.ArgDynamic(i)) {
					return true
				}
			}
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				if strings.IndexByte(spec.short, a[j]) < 0 {
					if fn(a[j:j+1], "", dyn) {
						return true
					}
					continue
				}
				if j+1 < len(a) {
					if fn(a[j:j+1], a[j+1:], dyn) {
						return true
					}
				} else if i+1 < len(args) {
					i++
					if fn(a[j:j+1], args[i], c.ArgDynamic(i)) {
						return true
					}
				}
				break
			}
		default:
			if fn("", a, dyn) {
				return true
			}
		}
	}
	return false
}

// longName expands name, a long flag or a GNU abbreviation of one, to the
// value-taking flag it names, or "".
func longName(long []string, name string) string {
	for _, l := range long {
		if l == name {
			return l
		}
	}
	for _, l := range long {
		if len(name) >= 2 && strings.HasPrefix(l, name) {
			return l
		}
	}
	return ""
}

// writeSpec is how a program's operands or flag values name the files
// it writes.
type writeSpec struct {
	spec argSpec
	// how: 'a' every operand; 'l' the last operand, or the -t value; 'f'
	// every operand after the first, or all with a reference flag; 's' the
	// operands after the script, or all with -e/-f; 'v' only flag values.
	how byte
	// flags are the flags whose value is a written file.
	flags string
	// longFlags are the long flags whose value is a written file.
	longFlags []string
}

// writeSpecs are the programs whose operands or flag values name files
// they write, by how.
var writeSpecs = sync.OnceValue(func() map[string]writeSpec {
	return map[string]writeSpec{
		"tee":      {how: 'a'},
		"touch":    {spec: argSpec{short: "dtr", long: []string{"date", "reference", "time"}}, how: 'a'},
		"mkdir":    {spec: argSpec{short: "m", long: []string{"mode", "context"}}, how: 'a'},
		"rmdir":    {how: 'a'},
		"rm":       {how: 'a'},
		"unlink":   {how: 'a'},
		"shred":    {spec: argSpec{short: "ns", long: []string{"iterations", "size", "random-source"}}, how: 'a'},
		"truncate": {spec: argSpec{short: "sr", long: []string{"size", "reference"}}, how: 'a'},
		"mv":       {spec: argSpec{short: "St", long: []string{"suffix", "target-directory"}}, how: 'a', flags: "t", longFlags: []string{"target-directory"}},
		"cp":       {spec: argSpec{short: "St", long: []string{"suffix", "target-directory"}}, how: 'l', flags: "t", longFlags: []string{"target-directory"}},
		"install":  {spec: argSpec{short: "gmoSt", long: []string{"group", "mode", "owner", "suffix", "target-directory", "strip-program"}}, how: 'l', flags: "t", longFlags: []string{"target-directory"}},
		"ln":       {spec: argSpec{short: "St", long: []string{"suffix", "target-directory"}}, how: 'l', flags: "t", longFlags: []string{"target-directory"}},
		"link":     {how: 'a'},
		"rsync":    {spec: argSpec{short: "efTB", long: []string{"rsh", "filter", "temp-dir", "block-size", "exclude", "include", "exclude-from", "include-from", "files-from", "partial-dir", "backup-dir", "compare-dest", "copy-dest", "link-dest", "chmod", "chown", "rsync-path"}}, how: 'l', longFlags: []string{"backup-dir", "partial-dir"}},
		"scp":      {spec: argSpec{short: "cFiJloPSD"}, how: 'l'},
		"chmod":    {spec: argSpec{long: []string{"reference"}}, how: 'f'},
		"chown":    {spec: argSpec{long: []string{"reference", "from"}}, how: 'f'},
		"chgrp":    {spec: argSpec{long: []string{"reference"}}, how: 'f'},
		"chattr":   {how: 'f'},
		"setfacl":  {spec: argSpec{short: "mMxX", long: []string{"modify", "modify-file", "remove", "remove-file", "set", "set-file"}}, how: 'a'},
		"sed":      {spec: argSpec{short: "efl", long: []string{"expression", "file", "line-length"}}, how: 's'},
		"perl":     {spec: argSpec{short: "eEIM"}, how: 's'},
		"curl":     {spec: argSpec{short: "oDcKdHuUxXTAeEbFmrwyYz", long: []string{"output", "output-dir", "dump-header", "cookie-jar", "trace", "trace-ascii", "stderr", "etag-save", "hsts", "alt-svc", "config", "data", "header", "user", "proxy", "request", "upload-file", "user-agent", "referer", "cert", "cookie", "form", "max-time", "range", "write-out", "url"}}, how: 'v', flags: "oDc", longFlags: []string{"output", "output-dir", "dump-header", "cookie-jar", "trace", "trace-ascii", "stderr", "etag-save", "hsts", "alt-svc"}},
		"wget":     {spec: argSpec{short: "OPoaeUTtwi", long: []string{"output-document", "directory-prefix", "output-file", "append-output", "execute", "user-agent", "timeout", "tries", "wait", "input-file", "header", "load-cookies", "save-cookies"}}, how: 'v', flags: "OPoa", longFlags: []string{"output-document", "directory-prefix", "output-file", "append-output", "save-cookies"}},
		"sort":     {spec: argSpec{short: "oktST", long: []string{"output", "key", "field-separator", "buffer-size", "temporary-directory"}}, how: 'v', flags: "o", longFlags: []string{"output"}},
		"unzip":    {spec: argSpec{short: "d"}, how: 'v', flags: "d"},
		"patch":    {spec: argSpec{short: "opdiDBrVYzF", long: []string{"output", "directory", "input", "reject-file"}}, how: 'v', flags: "ord", longFlags: []string{"output", "reject-file", "directory"}},
		"strace":   {spec: argSpec{short: "o"}, how: 'v', flags: "o"},
	}
})

// commandWrites calls fn with the files c writes: its redirect targets and
// the operands and flag values that file-writing programs write to. It
// stops when fn returns true and reports whether it did.
func commandWrites(c *shellmatch.Command, fn func(p string, dyn bool) bool) bool {
	for i, w := range c.Writes {
		if fn(w, c.WriteDynamic(i)) {
			return true
		}
	}
	if unpacksHere(c) && fn(".", false) { // any file of the working directory
		return true
	}
	if decompressWrites(c, fn) || linkWrites(c, fn) {
		return true
	}
	switch c.Program {
	case "dd":
		for i, a := range c.Args {
			if of, ok := strings.CutPrefix(a, "of="); ok && fn(of, c.ArgDynamic(i)) {
				return true
			}
		}
		return false
	case "tar":
		return tarWrites(c, fn)
	case "find":
		return findWrites(c, fn)
	case "crontab":
		return crontabWrites(c, fn)
	case "git":
		return gitWrites(c, fn)
	case "rename", "prename", "file-rename", "perl-rename":
		return renameWrites(c, fn)
	case "gawk", "awk":
		return awkInPlaceWrites(c, fn)
	}
	ws, ok := writeSpecs()[c.Program]
	if !ok {
		return false
	}
	if (c.Program == "sed" || c.Program == "perl") && !hasInPlace(c.Args) {
		return false
	}
	var (
		n           int    // operands seen
		last        string // the last operand
		lastDyn     bool
		target      bool // a -t flag named the destination
		scriptGiven bool // sed -e/-f or perl -e: every operand is a file
		reference   bool // chmod --reference: every operand is a file
	)
	hit := scanArgs(c, ws.spec, func(flag, val string, dyn bool) bool {
		if flag != "" {
			switch {
			case val != "" && (strings.Contains(ws.flags, flag) && len(flag) == 1 || contains(ws.longFlags, flag)):
				if flag == "t" || flag == "target-directory" {
					target = true
				}
				return fn(val, dyn)
			case flag == "e" || flag == "f" || flag == "expression" || flag == "file" || flag == "E":
				scriptGiven = true
			case flag == "reference":
				reference = true
			}
			return false
		}
		n++
		switch ws.how {
		case 'a':
			return fn(val, dyn)
		case 'l':
			last, lastDyn = val, dyn
		case 'f':
			if n > 1 || reference {
				return fn(val, dyn)
			}
		case 's':
			if n > 1 || scriptGiven {
				return fn(val, dyn)
			}
		}
		return false
	})
	if hit {
		return true
	}
	if ws.how == 'l' && !target && n >= 1 {
		return fn(last, lastDyn)
	}
	return false
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

// tarWrites calls fn with where tar extracts (-C) and, when it creates or
// appends, the archive it writes (-f). The first word may be a cluster
// without its dash (tar xzf a.tgz).
func tarWrites(c *shellmatch.Command, fn func(p string, dyn bool) bool) bool {
	creating := false
	for i, a := range c.Args {
		if strings.HasPrefix(a, "--") {
			creating = creating || a == "--create" || a == "--append" || a == "--update" || strings.HasPrefix(a, "--cat")
			continue
		}
		if strings.HasPrefix(a, "-") || i == 0 {
			creating = creating || strings.ContainsAny(a, "cruA")
		}
	}
	for i := 0; i < len(c.Args); i++ {
		a := c.Args[i]
		switch {
		case a == "--directory" || a == "-C" || (a == "--file" || a == "-f") && creating:
			if i+1 < len(c.Args) && fn(c.Args[i+1], c.ArgDynamic(i+1)) {
				return true
			}
			i++
		case strings.HasPrefix(a, "--directory="):
			if fn(a[len("--directory="):], c.ArgDynamic(i)) {
				return true
			}
		case strings.HasPrefix(a, "--file=") && creating:
			if fn(a[len("--file="):], c.ArgDynamic(i)) {
				return true
			}
		case strings.HasPrefix(a, "-C"):
			if fn(a[2:], c.ArgDynamic(i)) {
				return true
			}
		case (strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") || i == 0) && creating && strings.HasSuffix(a, "f") && i+1 < len(c.Args):
			if fn(c.Args[i+1], c.ArgDynamic(i+1)) {
				return true
			}
			i++
		}
	}
	return false
}

// findWrites calls fn with the start points of a find that deletes, and
// the files its -fprint family writes.
func findWrites(c *shellmatch.Command, fn func(p string, dyn bool) bool) bool {
	deletes := false
	for i, a := range c.Args {
		switch a {
		case "-delete":
			deletes = true
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			if i+1 < len(c.Args) && fn(c.Args[i+1], c.ArgDynamic(i+1)) {
				return true
			}
		}
	}
	if !deletes {
		return false
	}
	for i, a := range c.Args {
		if strings.HasPrefix(a, "-") && a != "-" || a == "(" || a == "!" {
			if a == "-H" || a == "-L" || a == "-P" {
				continue
			}
			break
		}
		if fn(a, c.ArgDynamic(i)) {
			return true
		}
	}
	return false
}

// crontabPath stands for the cron spool a crontab install writes.
const crontabPath = "/var/spool/cron/crontabs"

// crontabWrites reports a crontab that installs or edits a table as a
// write to the cron spool; listing one writes nothing.
func crontabWrites(c *shellmatch.Command, fn func(p string, dyn bool) bool) bool {
	for _, a := range c.Args {
		if a == "-l" {
			return false
		}
	}
	return fn(crontabPath, false)
}

func hasInPlace(args []string) bool {
	for _, a := range args {
		if strings.HasPrefix(a, "-i") || strings.HasPrefix(a, "--in-place") || (len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a, 'i')) {
			return true
		}
	}
	return false
}

// awkInPlaceWrites calls fn with the files gawk's inplace extension
// rewrites (gawk -i inplace PROG FILE…): every operand after the program
// text (all of them when -f, -e or --source gave it), but VAR=VALUE ones.
func awkInPlaceWrites(c *shellmatch.Command, fn func(p string, dyn bool) bool) bool {
	inplace, progGiven, n := false, false, 0
	for i := 0; i < len(c.Args); i++ {
		a := c.Args[i]
		if n == 0 && len(a) > 1 && a[0] == '-' && a != "--" {
			flag, val, attached := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if strings.HasPrefix(a, "--") {
				if !attached && (flag == "include" || flag == "file" || flag == "source" || flag == "assign" || flag == "field-separator" || flag == "load") && i+1 < len(c.Args) {
					i++
					val = c.Args[i]
				}
				inplace = inplace || flag == "include" && path.Base(strings.TrimSuffix(val, ".awk")) == "inplace"
				progGiven = progGiven || flag == "file" || flag == "source"
				continue
			}
			// A short flag takes the rest of its word or the next one.
			f, v := a[1], a[2:]
			if strings.IndexByte("ifevFlW", f) >= 0 && v == "" && i+1 < len(c.Args) {
				i++
				v = c.Args[i]
			}
			inplace = inplace || f == 'i' && path.Base(strings.TrimSuffix(v, ".awk")) == "inplace"
			progGiven = progGiven || f == 'f' || f == 'e'
			continue
		}
		if a == "--" && n == 0 {
			continue
		}
		n++
		if !inplace || n == 1 && !progGiven || strings.IndexByte(a, '=') > 0 && !strings.HasPrefix(a, "/") {
			continue
		}
		if fn(a, c.ArgDynamic(i)) {
			return true
		}
	}
	return false
}

// gitPathWriters are git's subcommands that write, move, remove or restore
// the working-tree files their operands name; clean with no operand cleans
// the whole working directory.
var gitPathWriters = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"mv": true, "rm": true, "restore": true, "checkout": true, "clean": true}
})

// gitValueFlags are git's global options that take a separate value.
var gitValueFlags = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"-C": true, "-c": true, "--git-dir": true, "--work-tree": true, "--namespace": true,
		"--super-prefix": true, "--config-env": true, "--exec-path": true, "--list-cmds": true, "--attr-source": true}
})

// gitWrites calls fn with the working-tree paths git mv, rm, restore,
// checkout and clean change: every operand after the subcommand (a
// checkout's branch too — a false alarm, never a miss), under -C's
// directory.
func gitWrites(c *shellmatch.Command, fn func(p string, dyn bool) bool) bool {
	dir, dirDyn := "", false
	i := 0
	for ; i < len(c.Args); i++ {
		a := c.Args[i]
		if !strings.HasPrefix(a, "-") {
			break
		}
		if gitValueFlags()[a] && i+1 < len(c.Args) {
			i++
			if a == "-C" {
				dir, dirDyn = path.Join(dir, c.Args[i]), dirDyn || c.ArgDynamic(i)
				if path.IsAbs(c.Args[i]) {
					dir = c.Args[i]
				}
			}
		}
	}
	if i == len(c.Args) || !gitPathWriters()[c.Args[i]] {
		return false
	}
	sub := c.Args[i]
	at := func(j int) (string, bool) {
		p := c.Args[j]
		if dir != "" && !path.IsAbs(p) {
			p = path.Join(dir, p)
		}
		return p, c.ArgDynamic(j) || dirDyn
	}
	n := 0
	for j := i + 1; j < len(c.Args); j++ {
		a := c.Args[j]
		if strings.HasPrefix(a, "-") && a != "-" {
			continue
		}
		n++
		if p, dyn := at(j); fn(p, dyn) {
			return true
		}
	}
	if sub == "clean" && n == 0 {
		p := dir
		if p == "" {
			p = "."
		}
		return fn(p, dirDyn)
	}
	return false
}

// renameWrites calls fn with the files rename renames — its operands
// after the expression (or util-linux's FROM, whose TO then counts too: a
// false alarm) — and with the names it gives them, which its expression
// computes: a write not known before the shell runs.
func renameWrites(c *shellmatch.Command, fn func(p string, dyn bool) bool) bool {
	n := 0
	for i, a := range c.Args {
		if strings.HasPrefix(a, "-") && n == 0 {
			continue
		}
		if n++; n > 1 && fn(a, c.ArgDynamic(i)) {
			return true
		}
	}
	return n > 1 && fn("the names "+c.Program+" gives", true)
}

// decompressWrites calls fn with a decompressor's outputs, beside its
// operands (gunzip run.gz writes run).
func decompressWrites(c *shellmatch.Command, fn func(p string, dyn bool) bool) bool {
	switch c.Program {
	case "gunzip", "bunzip2", "unxz", "unlzma", "unzstd", "uncompress", "gzip", "bzip2", "xz", "zstd", "lz4":
	default:
		return false
	}
	decompress := strings.HasPrefix(c.Program, "un") || c.Program == "gunzip"
	for _, a := range c.Args {
		if a == "-c" || a == "--stdout" || a == "--to-stdout" {
			return false
		}
		decompress = decompress || a == "-d" || a == "--decompress" || len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a, 'd')
	}
	if !decompress {
		return false
	}
	for i, a := range c.Args {
		if ext := path.Ext(a); !strings.HasPrefix(a, "-") && ext != "" && fn(strings.TrimSuffix(a, ext), c.ArgDynamic(i)) {
			return true
		}
	}
	return false
}

// unpacksHere reports whether c writes files its words do not name into
// its working directory: tar or unzip extracting without a directory,
// patch or git apply/am applying a patch.
func unpacksHere(c *shellmatch.Command) bool {
	switch c.Program {
	case "tar":
		extract := false
		for i, a := range c.Args {
			if a == "-C" || a == "--directory" || strings.HasPrefix(a, "--directory=") || strings.HasPrefix(a, "-C") {
				return false
			}
			extract = extract || a == "--extract" || a == "--get" ||
				(strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") || i == 0) && strings.ContainsRune(a, 'x')
		}
		return extract
	case "unzip", "7z", "bsdtar", "cpio":
		for _, a := range c.Args {
			if strings.HasPrefix(a, "-d") || strings.HasPrefix(a, "-o") && c.Program == "7z" {
				return false
			}
		}
		return true
	case "patch":
		return true
	case "git":
		for _, a := range c.Args {
			if !strings.HasPrefix(a, "-") {
				return a == "apply" || a == "am"
			}
		}
	}
	return false
}
