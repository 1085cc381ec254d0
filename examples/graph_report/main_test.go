package main

import (
	"context"
	"strings"
	"testing"
)

func TestGraphReportJoinsSpendingAndIncomeIntoTheSummary(t *testing.T) {
	t.Setenv("HELIKON_PROVIDER", "mock") // the scripted run, whatever the shell selects
	var out strings.Builder
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	want := "spending → Spent $3,310: housing $1,900, transport $558, groceries $540, dining $312.\n" +
		"income   → Earned $4,200: salary $3,900, freelance $300.\n" +
		"report   → November: you earned $4,200 and spent $3,310, so you saved $890 (21%). " +
		"Transport is your largest flexible cost; trimming it by $100 would lift savings to 24%.\n" +
		"(50 input + 25 output tokens across 3 nodes)\n"
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
}
