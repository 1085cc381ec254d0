package cli

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/a2a"
	"github.com/paigasus/helikon/cli/sidecar"
	"github.com/paigasus/helikon/cli/starlarktool"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/provider/anthropic"
	"github.com/paigasus/helikon/provider/bedrock"
	"github.com/paigasus/helikon/provider/gemini"
	"github.com/paigasus/helikon/provider/openai"
)

// apiKeys names the environment variables each networked provider reads,
// the first being the one to advise.
var apiKeys = map[string][]string{
	"openai":    {"OPENAI_API_KEY"},
	"anthropic": {"ANTHROPIC_API_KEY"},
	"gemini":    {"GEMINI_API_KEY", "GOOGLE_API_KEY"},
}

// hasKey reports whether any of vars is set.
func hasKey(vars []string) bool {
	for _, v := range vars {
		if os.Getenv(v) != "" {
			return true
		}
	}
	return false
}

// builder turns one loaded sidecar into agents. It is cheap; build a fresh
// one per turn or per eval case.
type builder struct {
	f      *sidecar.File
	caseID string
	built  map[string]helikon.Agent
	tools  map[string]helikon.Tool
	// rr records or replays the models and tools built (run's --record
	// and --replay); nil otherwise.
	rr *recordReplay
}

func newBuilder(f *sidecar.File, caseID string) *builder {
	return &builder{f: f, caseID: caseID, built: map[string]helikon.Agent{}, tools: map[string]helikon.Tool{}}
}

// agent builds the named agent and, recursively, its handoff targets. The
// sidecar rejected cycles at load, so the recursion ends.
func (b *builder) agent(name string) (helikon.Agent, error) {
	if a, ok := b.built[name]; ok {
		return a, nil
	}
	def, ok := b.f.Agents[name]
	if !ok {
		return nil, fmt.Errorf("%s: no agent %q (the agents are %s)", b.f.Path, name, nameList(b.f.AgentNames()))
	}
	key := "agents." + name
	if def.A2A != "" {
		a, err := remoteAgent(name, def.A2A)
		if err != nil {
			return nil, b.f.Errorf(key+".a2a", "%v", err)
		}
		b.built[name] = a
		return a, nil
	}
	model, err := b.model(key+".model", def.Model, name)
	if err != nil {
		return nil, err
	}
	opts := []helikon.AgentOption{helikon.WithDescription(def.Description), helikon.WithInstructions(def.Instructions)}
	for _, tn := range def.Tools {
		t, err := b.tool(tn)
		if err != nil {
			return nil, err
		}
		opts = append(opts, helikon.WithTools(t))
	}
	for _, hn := range def.Handoffs {
		target, err := b.agent(hn)
		if err != nil {
			return nil, err
		}
		opts = append(opts, helikon.WithHandoffs(helikon.HandoffTo(target)))
	}
	if s := def.Settings; s != nil {
		opts = append(opts, helikon.WithSettings(helikon.ModelSettings{
			Temperature: s.Temperature, TopP: s.TopP, MaxOutputTokens: s.MaxOutputTokens,
			ParallelToolCalls: s.ParallelToolCalls, ReasoningEffort: s.ReasoningEffort,
		}))
		if s.MaxTurns > 0 {
			opts = append(opts, helikon.WithRunConfig(helikon.RunConfig{MaxTurns: s.MaxTurns}))
		}
	}
	a, err := helikon.NewAgent(name, model, opts...)
	if err != nil {
		return nil, b.f.Errorf(key, "%v", err)
	}
	b.built[name] = a
	return a, nil
}

func (b *builder) tool(name string) (helikon.Tool, error) {
	if t, ok := b.tools[name]; ok {
		return t, nil
	}
	def := b.f.Tools[name]
	file := def.ScriptFile
	if file == "" {
		file = fmt.Sprintf("%s:[tools.%s].inline", b.f.Path, name)
	}
	var opts []starlarktool.Option
	if def.ReadOnly {
		opts = append(opts, starlarktool.WithReadOnly())
	}
	t, err := starlarktool.New(name, def.Description, def.Params, file, def.Source, opts...)
	if err != nil {
		return nil, b.f.Errorf("tools."+name, "%v", err)
	}
	b.tools[name] = b.rr.wrapTool(t)
	return b.tools[name], nil
}

// model builds a model definition for agent (empty for the eval judge).
// Keys are checked here, at build time, so a sidecar may declare live
// agents that a mock-only session never uses. An agent's mock model picks
// its script from the conversation ([mock.Conversational]), so one built
// agent serves every run, and a run resumed after an approval goes on
// where it paused; the judge's counts its calls.
func (b *builder) model(key string, m sidecar.Model, agent string) (helikon.Model, error) {
	if rm, ok := b.rr.replayModel(); ok {
		return rm, nil
	}
	if vars, ok := apiKeys[m.Provider]; ok && !hasKey(vars) {
		return nil, b.f.Errorf(key, "provider %s reads %s, which is not set: export %s=… or use provider = \"mock\"",
			m.Provider, strings.Join(vars, " or "), vars[0])
	}
	var (
		model helikon.Model
		err   error
	)
	switch m.Provider {
	case "mock":
		var sf *mock.ScriptFile
		if sf, err = mock.LoadScriptFile(m.Script); err == nil {
			if agent == "" {
				model = sf.Model(b.caseID)
			} else {
				model = sf.Conversational(b.caseID, agent)
			}
		}
	case "openai":
		model, err = asModel(openai.Chat(m.ID))
	case "anthropic":
		model, err = asModel(anthropic.Messages(m.ID))
	case "gemini":
		model, err = asModel(gemini.New(m.ID))
	case "bedrock":
		// The AWS chain resolves credentials lazily, at the first call;
		// only the region must be known now. Loading reads the environment
		// and the shared config files, nothing over the network.
		var cfg aws.Config
		if cfg, err = config.LoadDefaultConfig(context.Background()); err != nil {
			err = fmt.Errorf("bedrock: load AWS config: %w", err)
		} else {
			model, err = asModel(bedrock.New(cfg, m.ID))
		}
	default:
		err = fmt.Errorf("provider %s is unknown; use openai, anthropic, gemini, bedrock or mock", m.Provider)
	}
	if err != nil {
		return nil, b.f.Errorf(key, "%v", err)
	}
	return b.rr.wrapModel(model), nil
}

// asModel keeps a failed constructor's nil typed pointer from becoming a
// non-nil interface.
func asModel[M helikon.Model](m M, err error) (helikon.Model, error) {
	if err != nil {
		return nil, err
	}
	return m, nil
}

// remoteTimeout bounds reading a remote A2A agent's card at build time.
const remoteTimeout = 10 * time.Second

// remoteAgent reaches the A2A agent at url, reading its card now so that
// an unreachable remote fails at start, not on the first handoff.
func remoteAgent(name, url string) (helikon.Agent, error) {
	ctx, cancel := context.WithTimeout(context.Background(), remoteTimeout)
	defer cancel()
	return a2a.NewRemoteAgent(ctx, url, a2a.WithName(name))
}
