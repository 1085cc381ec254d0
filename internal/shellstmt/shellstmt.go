// Package shellstmt is what a shell parser hands internal/shellmatch: the
// statements of a command string, each with its words, redirect targets and
// assignments, in the order the shell meets them; and the parser the
// program links, if any.
//
// The parser (mvdan.cc/sh/v3/syntax, 0.29 MB of a binary and its package
// init on every start) is linked only by a program that imports
// governance/shellsyntax, as tools/bash does: a program that runs no shell
// tool does not carry it. Without it, internal/shellmatch still reads the
// common simple command lines itself and marks every other one unresolved,
// which the governance rules fail closed on.
package shellstmt

// Word is one word of a command, unquoted.
type Word struct {
	// Text is the word as the shell passes it when Lit or Home; otherwise a
	// loose form: $NAME for a parameter, "$?" for any other expansion.
	Text string
	// Lit reports that Text is exactly what the shell passes.
	Lit bool
	// Home reports that Text is exact but for $HOME, which stands for the
	// home directory ("${HOME:?}/x").
	Home bool
	// Glob and Brace report unquoted glob characters and the shape of a
	// brace expansion, which the shell expands after the matcher looked.
	Glob, Brace bool
}

// Assign is one variable assignment of a statement.
type Assign struct {
	// Name is the variable, Value the loose text of its value.
	Name, Value string
}

// Stmt is one statement of a command string.
type Stmt struct {
	// Words are the words of the simple command the statement runs, none
	// when it runs none (only redirections, an assignment, a compound
	// command whose own statements follow).
	Words []Word
	// Writes are the targets of its output redirections, as Word.Text;
	// DynWrites has bit i set when Writes[i] is not known before the shell
	// runs.
	Writes    []string
	DynWrites uint64
	// Assigns are the assignments of a declaration (export, declare, …) or
	// before the command.
	Assigns []Assign
	// Unresolved names a construct the parser met whose effect it cannot
	// know before the shell runs (a nameref with no literal target, a
	// declaration's argument named by an expansion, ${x@P}, text that
	// arithmetic would expand as an array subscript), or is "".
	Unresolved string
}

// Parser, when set, parses src as Bash into its statements: every
// statement, those nested in command and process substitutions, subshells,
// blocks, loops and functions too, each before the statements inside it.
// It fails when src does not parse.
var Parser func(src string) ([]Stmt, error)
