package server

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/agentgraph"
)

// eventVariants are the event types a run's stream carries, with their
// "type" names; the OpenAPI document derives one schema from each.
var eventVariants = []struct {
	name string
	typ  reflect.Type
}{
	{"run_started", reflect.TypeFor[helikon.RunStarted]()},
	{"turn_started", reflect.TypeFor[helikon.TurnStarted]()},
	{"model_responded", reflect.TypeFor[helikon.ModelResponded]()},
	{"token_delta", reflect.TypeFor[helikon.TokenDelta]()},
	{"reasoning_delta", reflect.TypeFor[helikon.ReasoningDelta]()},
	{"tool_call_delta", reflect.TypeFor[helikon.ToolCallDelta]()},
	{"message_output", reflect.TypeFor[helikon.MessageOutput]()},
	{"tool_call_item", reflect.TypeFor[helikon.ToolCallItem]()},
	{"tool_output_item", reflect.TypeFor[helikon.ToolOutputItem]()},
	{"handoff_item", reflect.TypeFor[helikon.HandoffItem]()},
	{"agent_updated", reflect.TypeFor[helikon.AgentUpdated]()},
	{"guardrail_triggered", reflect.TypeFor[helikon.GuardrailTriggered]()},
	{"approval_requested", reflect.TypeFor[helikon.ApprovalRequested]()},
	{"permission_denied", reflect.TypeFor[helikon.PermissionDenied]()},
	{"repair_started", reflect.TypeFor[helikon.RepairStarted]()},
	{"structured_output_failed", reflect.TypeFor[helikon.StructuredOutputFailed]()},
	{"run_completed", reflect.TypeFor[helikon.RunCompleted]()},
	{"run_paused", reflect.TypeFor[helikon.RunPaused]()},
	// An agent tool's sub-run event, wrapping any event (itself included).
	{"sub_run_event", reflect.TypeFor[helikon.SubRunEvent]()},
	// RunFailed's error marshals as an AgentError; its Go field is an error.
	{"run_failed", reflect.TypeFor[runFailedWire]()},
}

type runFailedWire struct {
	Error *helikon.AgentError `json:"error"`
	Usage helikon.Usage       `json:"usage"`
}

// contentParts are the item content parts, by "type" name.
var contentParts = []struct {
	name string
	typ  reflect.Type
}{
	{"text", reflect.TypeFor[helikon.TextPart]()},
	{"image", reflect.TypeFor[helikon.ImagePart]()},
	{"reasoning", reflect.TypeFor[helikon.ReasoningPart]()},
	{"tool_use", reflect.TypeFor[helikon.ToolUsePart]()},
	{"tool_result", reflect.TypeFor[helikon.ToolResultPart]()},
}

func ref(name string) *jsonschema.Schema {
	return &jsonschema.Schema{Ref: "#/components/schemas/" + name}
}

// schemas derives every component schema from the Go types with
// jsonschema-go. Types that marshal by hand (tagged unions, RawMessage,
// time) are mapped to what their JSON is.
type schemas struct {
	shared     map[reflect.Type]*jsonschema.Schema
	components map[string]*jsonschema.Schema
}

func newSchemas() *schemas {
	shared := map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[json.RawMessage](): {Description: "any JSON value"},
		reflect.TypeFor[[]byte]():          {Type: "string", ContentEncoding: "base64"},
		reflect.TypeFor[time.Time]():       {Type: "string", Format: "date-time"},
		reflect.TypeFor[RunStatus](): {Type: "string", Enum: []any{
			StatusQueued, StatusRunning, StatusPaused, StatusCompleted, StatusFailed, StatusCancelled, StatusInterrupted}},
		reflect.TypeFor[helikon.ErrorKind]():     {Type: "string"},
		reflect.TypeFor[helikon.Role]():          {Type: "string", Enum: []any{"system", "user", "assistant", "tool"}},
		reflect.TypeFor[helikon.GuardrailKind](): {Type: "string"},
		reflect.TypeFor[helikon.ContentPart]():   ref("ContentPart"),
		reflect.TypeFor[helikon.Item]():          ref("Item"),
		reflect.TypeFor[helikon.Usage]():         ref("Usage"),
		reflect.TypeFor[helikon.AgentError]():    ref("AgentError"),
		reflect.TypeFor[helikon.RunState]():      ref("RunState"),
		reflect.TypeFor[helikon.Event]():         ref("Event"),
		reflect.TypeFor[helikon.DecisionKind]():  {Type: "string", Enum: []any{"approve", "approve_with_args", "reject", "always"}},
		reflect.TypeFor[helikon.DecisionScope](): {Type: "string", Enum: []any{"", "run", "session"}},
	}
	return &schemas{shared: shared, components: make(map[string]*jsonschema.Schema)}
}

// derive returns t's schema, with every shared type but t itself referred
// to or mapped.
func (s *schemas) derive(t reflect.Type) (*jsonschema.Schema, error) {
	own := maps.Clone(s.shared)
	delete(own, t)
	return jsonschema.ForType(t, &jsonschema.ForOptions{TypeSchemas: own})
}

// add derives t's schema as component name; tag, when set, adds the
// required "type" member the type's MarshalJSON writes.
func (s *schemas) add(name string, t reflect.Type, tag string) error {
	sc, err := s.derive(t)
	if err != nil {
		return err
	}
	nullableRefs(sc)
	if tag != "" {
		if sc.Properties == nil {
			sc.Properties = map[string]*jsonschema.Schema{}
		}
		sc.Properties["type"] = &jsonschema.Schema{Type: "string", Const: jsonschema.Ptr[any](tag)}
		sc.Required = append([]string{"type"}, sc.Required...)
	}
	s.components[name] = sc
	return nil
}

func (s *schemas) build() error {
	plain := []struct {
		name string
		t    reflect.Type
	}{
		{"RunRequest", reflect.TypeFor[RunRequest]()},
		{"RunInfo", reflect.TypeFor[RunInfo]()},
		{"RunAccepted", reflect.TypeFor[RunAccepted]()},
		{"AgentList", reflect.TypeFor[AgentList]()},
		{"RunList", reflect.TypeFor[RunList]()},
		{"SessionList", reflect.TypeFor[SessionList]()},
		{"EvalDataset", reflect.TypeFor[EvalDataset]()},
		{"SavedCase", reflect.TypeFor[SavedCase]()},
		{"ErrorBody", reflect.TypeFor[ErrorBody]()},
		{"Item", reflect.TypeFor[helikon.Item]()},
		{"AgentError", reflect.TypeFor[helikon.AgentError]()},
		{"Approvals", reflect.TypeFor[Approvals]()},
		{"ApprovalRequest", reflect.TypeFor[ApprovalRequest]()},
		{"RunState", reflect.TypeFor[helikon.RunState]()},
		{"ModelCalls", reflect.TypeFor[ModelCalls]()},
		{"ForkRequest", reflect.TypeFor[ForkRequest]()},
	}
	for _, p := range plain {
		if err := s.add(p.name, p.t, ""); err != nil {
			return err
		}
	}
	if err := s.addRecursive("AgentNode", reflect.TypeFor[agentgraph.Node]()); err != nil {
		return err
	}
	// A RunState also carries its frozen loop, opaque to clients.
	s.components["RunState"].Properties["frame"] = &jsonschema.Schema{Description: "the paused loop, opaque: give it back only through the approvals route"}
	// Usage marshals with "type": "usage", as the model event it also is.
	if err := s.add("Usage", reflect.TypeFor[helikon.Usage](), ""); err != nil {
		return err
	}
	s.components["Usage"].Properties["type"] = &jsonschema.Schema{Type: "string", Const: jsonschema.Ptr[any]("usage")}
	var parts, events []*jsonschema.Schema
	for _, p := range contentParts {
		name := partName(p.typ)
		if err := s.add(name, p.typ, p.name); err != nil {
			return err
		}
		parts = append(parts, ref(name))
	}
	for _, v := range eventVariants {
		name := "Event_" + v.name
		if err := s.add(name, v.typ, v.name); err != nil {
			return err
		}
		// A WebSocket message carries its position as seq.
		s.components[name].Properties["seq"] = &jsonschema.Schema{Type: "integer", Minimum: jsonschema.Ptr(1.0),
			Description: "on a WebSocket message: the event's position in the run (an SSE frame's id:), for ?after= on a reconnect"}
		events = append(events, ref(name))
	}
	s.components["ContentPart"] = &jsonschema.Schema{OneOf: parts, Description: "one piece of an item, by its type"}
	s.components["Event"] = &jsonschema.Schema{OneOf: events,
		Description: "one event of a run: the data of an SSE frame (whose event: is the type) or one WebSocket message"}
	return nil
}

func partName(t reflect.Type) string { return t.Name() }

// addRecursive derives the schema of a struct type that contains itself
// (jsonschema-go refuses the cycle) as component name: its fields are
// derived from an unnamed copy of the struct, in which every use of t
// refers to the component.
func (s *schemas) addRecursive(name string, t reflect.Type) error {
	fields := make([]reflect.StructField, t.NumField())
	for i := range fields {
		fields[i] = t.Field(i)
	}
	own := maps.Clone(s.shared)
	own[t] = ref(name)
	sc, err := jsonschema.ForType(reflect.StructOf(fields), &jsonschema.ForOptions{TypeSchemas: own})
	if err != nil {
		return err
	}
	nullableRefs(sc)
	s.components[name] = sc
	return nil
}

// nullableRefs rewrites what jsonschema-go derives for a pointer to a
// type mapped to a $ref, {"type": ["null"], "$ref": …}, which under JSON
// Schema 2020-12 demands null and the referenced schema at once, into
// {"anyOf": [{"type": "null"}, {"$ref": …}]}.
func nullableRefs(sc *jsonschema.Schema) {
	if sc == nil {
		return
	}
	if sc.Ref != "" && (sc.Type == "null" || slices.Equal(sc.Types, []string{"null"})) {
		sc.AnyOf = []*jsonschema.Schema{{Type: "null"}, {Ref: sc.Ref}}
		sc.Ref, sc.Type, sc.Types = "", "", nil
	}
	for _, p := range sc.Properties {
		nullableRefs(p)
	}
	nullableRefs(sc.Items)
	nullableRefs(sc.AdditionalProperties)
	for _, list := range [][]*jsonschema.Schema{sc.AnyOf, sc.OneOf, sc.AllOf, sc.PrefixItems} {
		for _, c := range list {
			nullableRefs(c)
		}
	}
	for _, d := range sc.Defs {
		nullableRefs(d)
	}
}

// openAPIDocument builds the OpenAPI 3.1 document of the server's routes.
func (s *Server) openAPIDocument() ([]byte, error) {
	sc := newSchemas()
	if err := sc.build(); err != nil {
		return nil, err
	}
	names := make([]any, 0, len(s.list.Agents))
	for _, a := range s.list.Agents {
		names = append(names, a.Name)
	}
	return json.Marshal(openAPI(sc.components, names))
}

type obj = map[string]any

func jsonBody(schema string) obj {
	return obj{"application/json": obj{"schema": ref(schema)}}
}

func errorResponses(codes ...string) obj {
	out := obj{}
	for _, c := range codes {
		out[c] = obj{"description": errorDescriptions[c], "content": jsonBody("ErrorBody")}
	}
	return out
}

var errorDescriptions = map[string]string{
	"400": "malformed JSON, a body with neither input nor messages, or a bad parameter; field names the culprit",
	"401": "the authenticator did not admit the caller",
	"403": "the authenticator refused the caller",
	"404": "unknown agent, run or route",
	"405": "wrong method; Allow names the right one",
	"406": "the client accepts neither text/event-stream nor a WebSocket upgrade",
	"408": "body_timeout: the body did not arrive within a minute",
	"409": "case_exists, run_not_completed, input_truncated: the run cannot be saved as a case (again); run_elsewhere: the run is driven by another replica and the cancel cannot reach it (the event log relays no cancels, or its replica does not listen); run_not_paused: the run is not paused (at the pause named); not_forkable: the run kept no forkable call of that index, or its agent is not an LLM agent",
	"410": "events_gone: only the run index still remembers the run (the server restarted on the in-memory log); GET the run for its record",
	"413": "the body is larger than the server accepts",
	"431": "header_too_large: the request's headers are over 64 KiB",
	"429": "too many concurrent runs (on the server, of the principal or on the session: too_many_runs) or open event streams of the principal (too_many_streams); Retry-After says when to try again",
	"500": "a provider failed to set up the run; or the case sink failed to keep a case",
	"501": "the server's event log cannot list runs; or, saving cases, the server has no CaseSink",
	"503": "the server is shutting down, or a backend is unavailable",
	"504": "cancel_timeout: the replica driving the run received the relayed cancel, but the run did not end within the wait; read the run again",
}

func responses(ok obj, errs ...string) obj {
	// 431 comes from the connection, before any route: every operation
	// can get it.
	out := errorResponses(append([]string{"401", "403", "405", "431"}, errs...)...)
	maps.Copy(out, ok)
	return out
}

var runIDHeader = obj{"X-Run-Id": obj{"description": "the run's id", "schema": obj{"type": "string"}}}

func openAPI(components map[string]*jsonschema.Schema, agents []any) obj {
	name := obj{"name": "name", "in": "path", "required": true, "description": "the agent's name",
		"schema": obj{"type": "string", "enum": agents}}
	id := obj{"name": "id", "in": "path", "required": true, "description": "the run's id", "schema": obj{"type": "string"}}
	runInfo := obj{"description": "the run's record", "headers": runIDHeader, "content": jsonBody("RunInfo")}
	eventStream := obj{"text/event-stream": obj{"schema": obj{"type": "string",
		"description": "Server-Sent Events: one frame per event, event: its type, id: its position, data: the Event JSON (components/schemas/Event)"}}}
	doc := obj{
		"openapi": "3.1.0",
		"info": obj{"title": "Helikon agent server", "version": "1.0.0",
			"description": "Runs agents over HTTP, Server-Sent Events and WebSocket; every run is kept in an event log and can be replayed."},
		"paths": obj{
			"/agents": obj{"get": obj{
				"operationId": "listAgents", "summary": "The served agents",
				"responses": responses(obj{"200": obj{"description": "the agents", "content": jsonBody("AgentList")}}),
			}},
			"/agents/{name}/runs": obj{"post": obj{
				"operationId": "startRun", "summary": "Start a run",
				"description": "Answers with the run's record once it ends (default), its events as SSE (stream=sse), or 202 at once (mode=async). One-shot and SSE runs are cancelled when the client disconnects; async runs are not. Runs of one session (X-Session-Id) run one at a time per server: a run started while another holds its session is queued (status queued) until it takes the session's turn, then running.",
				"parameters": []any{name,
					obj{"name": "stream", "in": "query", "schema": obj{"type": "string", "enum": []any{"sse"}}},
					obj{"name": "mode", "in": "query", "schema": obj{"type": "string", "enum": []any{"async"}}},
					obj{"name": "capture", "in": "query", "description": "calls: keep what each model call is given, for GET .../calls and forks",
						"schema": obj{"type": "string", "enum": []any{"calls"}}},
					obj{"name": "X-Session-Id", "in": "header", "description": "pins the run to a session; runs on one session run one at a time",
						"schema": obj{"type": "string", "maxLength": 256}},
				},
				"requestBody": obj{"required": true, "content": jsonBody("RunRequest")},
				"responses": responses(obj{
					"200": obj{"description": "the finished run's record (one-shot), or its event stream (stream=sse)",
						"headers": runIDHeader, "content": mergeContent(jsonBody("RunInfo"), eventStream)},
					"202": obj{"description": "the run started in the background (mode=async): status running, or queued while another run holds its session", "headers": runIDHeader,
						"content": jsonBody("RunAccepted")},
				}, "400", "404", "408", "413", "429", "500", "503"),
			}},
			"/agents/{name}/runs/{id}": obj{"get": obj{
				"operationId": "getRun", "summary": "A run's status and, once it ended, its result",
				"parameters": []any{name, id},
				"responses":  responses(obj{"200": runInfo}, "404", "503"),
			}},
			"/agents/{name}/graph": obj{"get": obj{
				"operationId": "agentGraph", "summary": "The agent's structure",
				"description": "What the agent runs, nested: an LLM agent's model, tools, agents called as tools and handoff targets; a workflow's members and the edges between them. An agent met again in the tree (a handoff cycle) is a reference by name; the tree is bounded (1,000 nodes, 32 levels).",
				"parameters":  []any{name},
				"responses":   responses(obj{"200": obj{"description": "the agent's structure", "content": jsonBody("AgentNode")}}, "404"),
			}},
			"/agents/{name}/runs/{id}/events": obj{"get": obj{
				"operationId": "runEvents", "summary": "Replay a run's events, then follow it live",
				"description": "With a WebSocket upgrade: one text message per event (with its position as seq), then a normal closure. Otherwise Server-Sent Events from Last-Event-ID (or after) on. A stream always ends with a terminal event, but for one that resumes after it (SSE: 204; WebSocket: a normal closure at once); a resume point past a finished run's last event is a 400.",
				"parameters": []any{name, id,
					obj{"name": "Last-Event-ID", "in": "header", "schema": obj{"type": "integer", "minimum": 0}},
					obj{"name": "after", "in": "query", "schema": obj{"type": "integer", "minimum": 0}},
				},
				"responses": responses(obj{
					"101": obj{"description": "WebSocket: one message per event (components/schemas/Event), with its position as seq"},
					"200": obj{"description": "the run's events", "headers": runIDHeader, "content": eventStream},
					"204": obj{"description": "the run has ended and Last-Event-ID (or after) is its terminal event: nothing more to send", "headers": runIDHeader},
				}, "400", "404", "406", "410", "429", "503"),
			}},
			"/agents/{name}/runs/{id}/cancel": obj{"post": obj{
				"operationId": "cancelRun", "summary": "Cancel a run; a finished run is answered as it is",
				"description": "Works on any replica: with an event log that relays cancels (redislog), a replica that does not drive the run relays the cancel to the one that does and answers once the run has ended.",
				"parameters":  []any{name, id},
				"responses":   responses(obj{"200": runInfo}, "404", "409", "503", "504"),
			}},
			"/agents/{name}/runs/{id}/approvals": obj{
				"get": obj{
					"operationId": "listApprovals", "summary": "The calls a paused run waits on",
					"parameters": []any{name, id},
					"responses": responses(obj{"200": obj{"description": "the pending approvals", "headers": runIDHeader,
						"content": jsonBody("Approvals")}}, "404", "409", "503"),
				},
				"post": obj{
					"operationId": "decide", "summary": "Decide a paused run's calls; the run continues under the same id",
					"description": "Claims the pause (exactly once across replicas) and continues the run in the background; its event streams show the continuation.",
					"parameters":  []any{name, id},
					"requestBody": obj{"required": true, "content": jsonBody("ApprovalRequest")},
					"responses": responses(obj{"202": obj{"description": "the run continues: status running, or queued while another run holds its session", "headers": runIDHeader,
						"content": jsonBody("RunAccepted")}}, "400", "404", "408", "409", "413", "429", "500", "503"),
				},
			},
			"/runs": obj{"get": obj{
				"operationId": "listRuns", "summary": "The retained runs, newest first",
				"description": "Every run the event log still holds (queued, running, paused and finished within the retention), optionally of one agent or one session.",
				"parameters": []any{
					obj{"name": "agent", "in": "query", "description": "only this agent's runs", "schema": obj{"type": "string", "enum": agents}},
					obj{"name": "session", "in": "query", "description": "only the runs of this X-Session-Id", "schema": obj{"type": "string"}},
					obj{"name": "limit", "in": "query", "description": "at most this many runs (default 100)",
						"schema": obj{"type": "integer", "minimum": 1, "maximum": MaxRunListLimit}},
				},
				"responses": responses(obj{"200": obj{"description": "the runs", "content": jsonBody("RunList")}}, "400", "404", "501", "503"),
			}},
			"/agents/{name}/runs/{id}/case": obj{"post": obj{
				"operationId": "saveCase", "summary": "Save a completed run as an evaluation case",
				"description": "The case: the run's input, its answer as the expected output, its tool calls in order as the expected tools (as an evaluation run counts them), id run-<run id>. The server's CaseSink keeps it (helikon serve: appended to the JSONL dataset that helikon eval run reads). 501 when the server has no CaseSink.",
				"parameters":  []any{name, id},
				"responses": responses(obj{"201": obj{"description": "the case as saved", "headers": runIDHeader, "content": jsonBody("SavedCase")}},
					"404", "409", "410", "500", "501", "503"),
			}},
			"/eval/dataset": obj{"get": obj{
				"operationId": "evalDataset", "summary": "Where saved cases go",
				"responses": responses(obj{"200": obj{"description": "the dataset's name", "content": jsonBody("EvalDataset")}}, "501"),
			}},
			"/sessions": obj{"get": obj{
				"operationId": "listSessions", "summary": "The caller's sessions, the latest used first",
				"description": "The sessions of the caller's newest 1,000 runs (from the run index when the server keeps one, so the list survives a restart). A session id belongs to the principal that used it: the list holds only the caller's own, an admin's included.",
				"responses":   responses(obj{"200": obj{"description": "the sessions", "content": jsonBody("SessionList")}}, "501", "503"),
			}},
			"/openapi.json": obj{"get": obj{
				"operationId": "openAPI", "summary": "This document",
				"responses": responses(obj{"200": obj{"description": "the OpenAPI 3.1 document",
					"content": obj{"application/json": obj{"schema": obj{"type": "object"}}}}}),
			}},
		},
		"components": obj{"schemas": components},
	}
	maps.Copy(doc["paths"].(obj), debugPaths(name, id))
	return doc
}

func mergeContent(a, b obj) obj {
	out := maps.Clone(a)
	maps.Copy(out, b)
	return out
}
