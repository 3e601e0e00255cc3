// graphmem from an editor plugin (Node): find the daemon, subscribe to events, save an
// observation about the code at the cursor, and recall what is known about it.
//   node graphmem_example.mjs 'path/to/file.py::Class.method'   (run inside a registered repository)
// Needs: npm install @grpc/grpc-js @grpc/proto-loader, and graphmem's proto/ directory
// (GRAPHMEM_PROTO_DIR, default: ../../proto next to this file in the graphmem checkout).
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import grpc from "@grpc/grpc-js";
import protoLoader from "@grpc/proto-loader";

// Socket discovery: the same rules as graphmem's own clients.
function daemonAddress(env = process.env) {
  const explicit = (env.GRAPHMEM_ADDRESS || "").trim();
  if (explicit) {
    if (explicit.startsWith("/")) return `unix:${explicit}`;
    return explicit.replace(/^tcp:\/\//, ""); // unix:/path or host:port
  }
  let runtime;
  if (env.GRAPHMEM_HOME) runtime = path.join(env.GRAPHMEM_HOME, "run");
  else if (env.XDG_RUNTIME_DIR) runtime = path.join(env.XDG_RUNTIME_DIR, "graphmem");
  else runtime = path.join(env.XDG_STATE_HOME || path.join(env.HOME || os.homedir(), ".local", "state"), "graphmem", "run");
  return `unix:${path.join(runtime, "graphmemd.sock")}`;
}

const here = path.dirname(fileURLToPath(import.meta.url));
const protoDir = process.env.GRAPHMEM_PROTO_DIR || path.join(here, "..", "..", "proto");
const definition = protoLoader.loadSync("graphmem/v1/service.proto", {
  includeDirs: [protoDir],
  keepCase: true, // field names as in the .proto (snake_case), like the CLI's --json
  enums: String, // "EVENT_KIND_OBSERVATION_CHANGED"
  longs: Number,
  defaults: true,
  oneofs: true,
});
const v1 = grpc.loadPackageDefinition(definition).graphmem.v1;
const address = daemonAddress();
const creds = grpc.credentials.createInsecure();
const daemon = new v1.DaemonService(address, creds);
const observations = new v1.ObservationService(address, creds);
const retrieval = new v1.RetrievalService(address, creds);
const events = new v1.EventService(address, creds);

const call = (client, method, request) =>
  new Promise((resolve, reject) => {
    client[method](request, { deadline: Date.now() + 10_000 }, (err, response) => (err ? reject(err) : resolve(response)));
  });

async function main() {
  const anchor = process.argv[2];
  const repo = process.cwd(); // the repository is the one containing the working directory
  const status = await call(daemon, "GetStatus", {});
  console.log(`graphmemd ${status.version} at ${address}: ${status.repositories.length} repositories`);

  // Subscribe first; the headers arrive at once, and from then on no event is missed.
  const stream = events.Subscribe({ repo });
  await new Promise((resolve, reject) => {
    stream.once("metadata", resolve);
    stream.once("error", reject);
  });
  let lastSeq = 0; // resume after a disconnect with Subscribe({ repo, after_seq: lastSeq })
  const created = new Promise((resolve) => {
    stream.on("data", (event) => {
      lastSeq = event.seq;
      const action = event.action === "OBSERVATION_ACTION_UNSPECIFIED" ? "" : ` ${event.action}`;
      console.log(`event #${event.seq} ${event.kind}${action} ${event.observation_id}`);
      if (event.kind === "EVENT_KIND_OBSERVATION_CHANGED") resolve(event);
    });
  });
  stream.on("error", (err) => {
    if (err.code !== grpc.status.CANCELLED) console.error(`event stream: ${err.message}`);
  });

  const saved = await call(observations, "CreateObservation", {
    repo,
    text: "Saved from the Node example: callers must hold the session lock.",
    category: "CATEGORY_CONSTRAINT",
    anchors: [anchor],
    source: "node-example",
  });
  console.log(`saved ${saved.id} (${saved.status})`);
  const event = await created;
  if (event.observation_id !== saved.id) throw new Error(`unexpected event for ${event.observation_id}`);

  const recalled = await call(retrieval, "Retrieve", { repo, symbols: [anchor], hops: 1 });
  for (const hit of recalled.results) {
    console.log(`recalled ${hit.observation.id} ${hit.observation.status} distance ${hit.distance}: ${hit.observation.text}`);
  }
  console.log(`index ${recalled.freshness.current ? "current" : "NOT current"}; last event seq ${lastSeq}`);
  stream.cancel();
  for (const client of [daemon, observations, retrieval, events]) client.close();
}

main().catch((err) => {
  console.error(`graphmem example failed: ${err.details || err.message}`);
  process.exit(1);
});
