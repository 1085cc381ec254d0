// Drives an A2A server with the JavaScript SDK's client and prints a JSON
// report for the Go test: node client.mjs <base-url> <question>
import { ClientFactory } from '@a2a-js/sdk/client';

const [baseUrl, question] = process.argv.slice(2);
const client = await new ClientFactory().createFromUrl(baseUrl);
const card = await client.getAgentCard();

const report = { card: { name: card.name, streaming: !!card.capabilities?.streaming }, kinds: [], streamed: '', output: '', final: '' };
let taskId = '';
const message = { kind: 'message', messageId: crypto.randomUUID(), role: 'user', parts: [{ kind: 'text', text: question }] };
for await (const ev of client.sendMessageStream({ message })) {
  report.kinds.push(ev.kind);
  if (ev.kind === 'task') taskId = ev.id;
  if (ev.kind === 'artifact-update') {
    const text = ev.artifact.parts.filter((p) => p.kind === 'text').map((p) => p.text).join('');
    if (ev.artifact.name === 'output') report.output += text;
    else report.streamed += text;
  }
  if (ev.kind === 'status-update' && ev.final) report.final = ev.status.state;
}
const task = await client.getTask({ id: taskId });
report.task = { state: task.status.state, artifacts: task.artifacts?.map((a) => a.name) ?? [] };
try {
  await client.getTask({ id: 'no-such-task' });
  report.unknown = 'found';
} catch (e) {
  report.unknown = e.constructor.name;
}
const sent = await client.sendMessage({ message: { ...message, messageId: crypto.randomUUID() } });
report.send = { kind: sent.kind, state: sent.status?.state };
console.log(JSON.stringify(report));
