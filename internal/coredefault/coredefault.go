// Package coredefault carries the governance package's defaults to the
// core without an import: the core cannot import governance, which builds
// on it, yet every run of a program that links governance (as every
// program using the Bash or file tools does, since those tools declare
// their kinds through it) gets the default guard rules and secret
// redaction unless its context sets its own.
//
// governance sets both in its init; the core reads them when it builds a
// RunContext. They hold a helikon.Authorizer and a helikon.Redactor.
package coredefault

// Authorizer and Redactor are the defaults of every new RunContext.
var Authorizer, Redactor any

// CheckTool, when set, sees every tool an agent is built with (tool is a
// helikon.Tool); governance warns there about a tool that looks like it
// runs shell commands without declaring it.
var CheckTool func(agent string, tool any)
