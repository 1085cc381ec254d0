// scenarios.mjs runs the scenarios S1–S4 of ../scenarios_test.go on the
// OpenAI Agents SDK for JS (@openai/agents-core, pinned in package.json)
// with a scripted in-process model, so that ../agentsjs_test.go can pair
// them with Helikon's:
//
//   S1 one tool round: a call to add, then the answer;
//   S2 ten rounds of four parallel calls to add, then the answer;
//   S3 one streamed answer of 1,000 deltas, through the SDK's streaming
//      path (run(..., {stream: true}) and Model.getStreamedResponse);
//   S4 three agents that each answer at once, run in parallel the way the
//      SDK's orchestration guide says ("Running multiple agents in
//      parallel, e.g. via JavaScript primitives like Promise.all"): three
//      runs under Promise.all, then one object of their outputs, as
//      Helikon's Parallel agent answers.
//
// Each run builds its agents and models anew (as the Go side does) and
// checks its result; a wrong one throws. Tracing is disabled on the
// runner: no trace exporter is configured with agents-core alone, and
// Helikon's side traces nothing either.
//
// Usage:
//   node scenarios.mjs [-n 2000] [-warmup 1000] [-only S1,S3]
//       warm each scenario up (JIT), time n runs of it, print
//       {"S1": ns/op, ...} as JSON.
//   node scenarios.mjs -check
//       run each scenario once and print what it checked, as JSON.
//   node scenarios.mjs -serve
//       read lines "S<k> <n>" on stdin, run that scenario n times and
//       answer each line with the nanoseconds the runs took, timed here
//       (no pipe time), or "error <message>" (used by ../agentsjs_test.go).
import { createInterface } from 'node:readline';
import { Agent, Runner, Usage, tool } from '@openai/agents-core';
import { assistantMessage, functionCall } from '@openai/agents-core/testing';
import { z } from 'zod';

// The tool of S1 and S2, built once as Helikon's hAdd is. toolCalls counts
// its calls, so a check can tell that every scripted call ran.
let toolCalls = 0;
const add = tool({
  name: 'add',
  description: 'Add two integers.',
  parameters: z.object({
    a: z.number().int().describe('first addend'),
    b: z.number().int().describe('second addend'),
  }),
  execute: async ({ a, b }) => {
    toolCalls++;
    return { sum: a + b };
  },
});

const runner = new Runner({ tracingDisabled: true });

// ScriptedModel answers like Helikon's mock.New: one scripted turn a model
// call. Turns below rounds are calls parallel calls to add, each with the
// arguments {"a":40,"b":2}; the turn after them is the answer. Its items
// are built with the SDK's own testing helpers (the normalized protocol
// items a provider adapter returns), its stream events are the normalized
// StreamEvent shapes: response_started, output_text_delta per delta,
// response_done carrying the whole response.
class ScriptedModel {
  constructor({ rounds = 0, calls = 0, answer = '', deltas = null }) {
    this.rounds = rounds;
    this.calls = calls;
    this.answer = answer;
    this.deltas = deltas;
    this.turn = 0;
  }

  #next() {
    const t = this.turn++;
    if (t >= this.rounds) {
      return [assistantMessage(this.answer, { id: `msg_${t}` })];
    }
    const out = new Array(this.calls);
    for (let i = 0; i < this.calls; i++) {
      out[i] = functionCall('add', '{"a":40,"b":2}', { callId: `c${t}_${i}` });
    }
    return out;
  }

  async getResponse() {
    const t = this.turn;
    return { usage: new Usage({ requests: 1 }), output: this.#next(), responseId: `resp_${t}` };
  }

  async *getStreamedResponse() {
    const t = this.turn++;
    const id = `msg_${t}`;
    yield { type: 'response_started' };
    for (const delta of this.deltas) {
      yield { type: 'output_text_delta', itemId: id, delta };
    }
    yield {
      type: 'response_done',
      response: {
        id: `resp_${t}`,
        usage: { requests: 1, inputTokens: 0, outputTokens: 0, totalTokens: 0 },
        output: [assistantMessage(this.deltas.join(''), { id })],
      },
    };
  }
}

function fail(what, got) {
  throw new Error(`agentsjs ${what}: got ${JSON.stringify(got)}`);
}

async function toolRun(rounds, calls, answer) {
  const before = toolCalls;
  const agent = new Agent({
    name: 'calc',
    model: new ScriptedModel({ rounds, calls, answer }),
    tools: [add],
  });
  const res = await runner.run(agent, 'what is 40+2?', { maxTurns: 100 });
  if (res.finalOutput !== answer) fail('final output', res.finalOutput);
  if (toolCalls - before !== rounds * calls) fail('tool calls', toolCalls - before);
  return { finalOutput: res.finalOutput, toolCalls: toolCalls - before };
}

const parts = new Array(1000).fill('tok ');

async function stream() {
  const agent = new Agent({ name: 'streamer', model: new ScriptedModel({ deltas: parts }) });
  const res = await runner.run(agent, 'stream', { stream: true });
  let n = 0;
  for await (const ev of res) {
    if (ev.type === 'raw_model_stream_event' && ev.data.type === 'output_text_delta') n++;
  }
  await res.completed;
  if (n !== parts.length) fail('deltas', n);
  return { deltas: n, finalOutputLength: res.finalOutput.length };
}

const parallelNames = ['a', 'b', 'c'];

async function parallel() {
  const agents = parallelNames.map(
    (name) => new Agent({ name, model: new ScriptedModel({ answer: name }) }),
  );
  const results = await Promise.all(agents.map((a) => runner.run(a, 'go')));
  const out = {};
  for (let i = 0; i < agents.length; i++) out[parallelNames[i]] = results[i].finalOutput;
  const got = JSON.stringify(out);
  if (got !== '{"a":"a","b":"b","c":"c"}') fail('parallel output', got);
  return { finalOutput: got };
}

const scenarios = {
  S1: () => toolRun(1, 1, 'sum is 42'),
  S2: () => toolRun(10, 4, 'done'),
  S3: stream,
  S4: parallel,
};

// timeRuns runs scenario n times, one after another, and returns the
// nanoseconds they took.
async function timeRuns(name, n) {
  const sc = scenarios[name];
  if (!sc) throw new Error(`unknown scenario ${JSON.stringify(name)}`);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await sc();
  return process.hrtime.bigint() - t0;
}

async function serve() {
  const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of rl) {
    const [name, count] = line.trim().split(/\s+/);
    const n = Number.parseInt(count ?? '1', 10);
    try {
      if (!Number.isInteger(n) || n < 1 || n > 1e7) throw new Error(`bad count ${JSON.stringify(count)}`);
      const ns = await timeRuns(name, n);
      process.stdout.write(`${ns}\n`);
    } catch (err) {
      process.stdout.write(`error ${String(err?.message ?? err).replace(/\n/g, ' ')}\n`);
    }
  }
}

function flag(args, name, def) {
  const i = args.indexOf(name);
  if (i < 0) return def;
  const v = args[i + 1];
  if (v === undefined) throw new Error(`${name} needs a value`);
  return v;
}

async function main(args) {
  if (args.includes('-serve')) return serve();
  const only = flag(args, '-only', Object.keys(scenarios).join(',')).split(',');
  if (args.includes('-check')) {
    const out = {};
    for (const name of only) out[name] = await scenarios[name]();
    process.stdout.write(`${JSON.stringify(out)}\n`);
    return;
  }
  const n = Number.parseInt(flag(args, '-n', '2000'), 10);
  const warmup = Number.parseInt(flag(args, '-warmup', '1000'), 10);
  const out = {};
  for (const name of only) {
    await timeRuns(name, warmup);
    out[name] = Number(await timeRuns(name, n)) / n;
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

main(process.argv.slice(2)).catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
