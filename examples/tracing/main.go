// Command tracing exports a run's OpenTelemetry spans with the SDK's stdout
// exporter: a triage agent hands a question to a billing agent, which calls
// two tools and answers. The run goes through the default runner with a
// session, a price table and trace attributes, and prints the span tree
// (invoke_agent → agent.turn → chat / execute_tool) as JSON on stdout.
//
// It runs on the scripted mock model, so it needs no API key. Swap the
// stdout exporter for an OTLP one (go.opentelemetry.io/otel/exporters/otlp/
// otlptrace/otlptracehttp) to send the same spans to Langfuse, Jaeger,
// Honeycomb or any collector.
//
// HELIKON_PROVIDER=openai, anthropic, gemini or bedrock switches every agent
// to one real model (examples/internal/envmodel; an error names the variable
// to set).
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.37.0"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/examples/internal/envmodel"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/retry"
	"github.com/paigasus/helikon/runner"
)

// BalanceArgs are balance's arguments.
type BalanceArgs struct {
	Account string `json:"account" jsonschema:"account id"`
}

// InvoiceArgs are last_invoice's arguments.
type InvoiceArgs struct {
	Account string `json:"account" jsonschema:"account id"`
}

var (
	balance = helikon.MustTool("balance", "Current balance of an account, in dollars.",
		func(tc *helikon.ToolContext, in BalanceArgs) (float64, error) { return 42.5, nil },
		helikon.WithEffect(helikon.ReadOnly))
	lastInvoice = helikon.MustTool("last_invoice", "The account's latest invoice.",
		func(tc *helikon.ToolContext, in InvoiceArgs) (string, error) { return "INV-7 (due Dec 1)", nil },
		helikon.WithEffect(helikon.ReadOnly))
)

func main() {
	if err := run(context.Background(), os.Stdout, os.Stderr); err != nil {
		log.Fatal(err)
	}
}

// run answers one question, exporting the spans to spans and printing the
// answer to out.
func run(ctx context.Context, spans, out io.Writer) error {
	exporter, err := stdouttrace.New(stdouttrace.WithWriter(spans), stdouttrace.WithPrettyPrint())
	if err != nil {
		return err
	}
	// A batching processor is what production uses; Shutdown flushes it.
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter),
		sdktrace.WithResource(resource.NewSchemaless(semconv.ServiceName("helikon-tracing-example"))))
	defer func() {
		if err := tp.Shutdown(ctx); err != nil {
			log.Print(err)
		}
	}()
	otel.SetTracerProvider(tp)

	// HELIKON_PROVIDER switches both agents to one real model.
	pick, err := envmodel.Picker()
	if err != nil {
		return err
	}
	billingModel, err := retry.New(pick(mock.New([]mock.Script{
		mock.ToolCalls(
			mock.Call{ID: "call_balance", Name: "balance", Args: `{"account":"acct-1"}`},
			mock.Call{ID: "call_invoice", Name: "last_invoice", Args: `{"account":"acct-1"}`},
		),
		mock.Text("Your balance is $42.50; invoice INV-7 is due Dec 1."),
	}, mock.WithModelID("gpt-5-mini"))))
	if err != nil {
		return err
	}
	billing, err := helikon.NewAgent("billing", billingModel,
		helikon.WithDescription("Answers questions about balances and invoices."),
		helikon.WithTools(balance, lastInvoice))
	if err != nil {
		return err
	}
	triage, err := helikon.NewAgent("triage", pick(mock.New([]mock.Script{
		mock.ToolCalls(mock.Call{ID: "call_handoff", Name: "transfer_to_billing", Args: `{}`}),
	}, mock.WithModelID("gpt-5-nano"))), helikon.WithHandoffs(helikon.HandoffTo(billing)))
	if err != nil {
		return err
	}

	rc := helikon.NewRunContext(
		helikon.WithSession(helikon.NewMemorySession()),
		helikon.WithTracer(helikon.TracerHandle{SessionID: "demo-session", UserID: "demo-user", Tags: []string{"example"}}),
		helikon.WithPrices(helikon.Prices{
			"gpt-5-mini": {Input: 0.25, CachedInput: 0.025, Output: 2},
			"gpt-5-nano": {Input: 0.05, CachedInput: 0.005, Output: 0.4},
		}),
	)
	res, err := runner.New().Run(ctx, triage, rc, helikon.UserText("How much do I owe, and when is it due?"))
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s: %s\n(%d input + %d output tokens, $%.8f)\n",
		res.LastAgent, res.FinalOutput, res.Usage.InputTokens, res.Usage.OutputTokens, res.Usage.Cost)
	return nil
}
