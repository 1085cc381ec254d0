// An A2A agent served by the JavaScript SDK, for the Go client's tests:
// node server.mjs. It prints its base URL, then streams "Invoice 42 " and
// "is paid." as one artifact and completes; a message saying "fail" ends
// its task failed; one saying "wait" streams "waiting" and waits for its
// task's cancel, which GET /canceled lists.
import express from 'express';
import { DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { A2AExpressApp } from '@a2a-js/sdk/server/express';

const card = {
  name: 'JS Billing', description: 'A billing agent served by the A2A JavaScript SDK.', url: '', version: '1.0.0',
  protocolVersion: '0.3.0', preferredTransport: 'JSONRPC', capabilities: { streaming: true },
  defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'], skills: [],
};

const canceled = [];
const waiting = new Map();

const executor = {
  async execute(ctx, bus) {
    const { taskId, contextId, userMessage } = ctx;
    bus.publish({ kind: 'task', id: taskId, contextId, status: { state: 'submitted' }, history: [userMessage] });
    const text = userMessage.parts.filter((p) => p.kind === 'text').map((p) => p.text).join('');
    if (text.includes('fail')) {
      bus.publish({ kind: 'status-update', taskId, contextId, final: true,
        status: { state: 'failed', message: { kind: 'message', messageId: crypto.randomUUID(), role: 'agent', parts: [{ kind: 'text', text: 'the ledger is closed' }] } } });
      bus.finished();
      return;
    }
    bus.publish({ kind: 'status-update', taskId, contextId, final: false, status: { state: 'working' } });
    if (text.includes('wait')) {
      const done = new Promise((resolve) => waiting.set(taskId, resolve));
      bus.publish({ kind: 'artifact-update', taskId, contextId, artifact: { artifactId: 'wait', parts: [{ kind: 'text', text: 'waiting' }] } });
      await done;
      return;
    }
    const artifactId = 'answer';
    bus.publish({ kind: 'artifact-update', taskId, contextId, append: false, artifact: { artifactId, parts: [{ kind: 'text', text: 'Invoice 42 ' }] } });
    bus.publish({ kind: 'artifact-update', taskId, contextId, append: true, lastChunk: true, artifact: { artifactId, parts: [{ kind: 'text', text: 'is paid.' }] } });
    bus.publish({ kind: 'status-update', taskId, contextId, final: true, status: { state: 'completed' } });
    bus.finished();
  },
  async cancelTask(taskId, bus) {
    canceled.push(taskId);
    bus.publish({ kind: 'status-update', taskId, contextId: '', final: true, status: { state: 'canceled' } });
    bus.finished();
    waiting.get(taskId)?.();
  },
};

const app = new A2AExpressApp(new DefaultRequestHandler(card, new InMemoryTaskStore(), executor)).setupRoutes(express());
app.get('/canceled', (req, res) => res.json(canceled));
const server = app.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  card.url = `http://127.0.0.1:${port}/`;
  console.log(card.url);
});
process.stdin.on('end', () => server.close(() => process.exit(0)));
process.stdin.resume();
