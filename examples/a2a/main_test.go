package main

import (
	"context"
	"flag"
	"os"
	"strings"
	"testing"
)

// TestMain lets the test binary be the specialist's process too: run
// starts os.Args[0] with -serve.
func TestMain(m *testing.M) {
	for i, a := range os.Args {
		if a == "-serve" && i+1 < len(os.Args) {
			if err := serveSpecialist(context.Background(), os.Args[i+1], os.Stdout, os.Stdin); err != nil {
				os.Exit(1)
			}
			os.Exit(0)
		}
	}
	flag.Parse()
	os.Exit(m.Run())
}

func TestTriageHandsOffToTheSpecialistInAnotherProcess(t *testing.T) {
	var out strings.Builder
	if err := run(context.Background(), &out, os.Args[0]); err != nil {
		t.Fatal(err)
	}
	want := "user: Was invoice 42 paid?\n" +
		"[handoff triage → billing, over A2A]\n" +
		"billing: Invoice 42 was paid on 3 May by bank transfer.\n"
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
}
