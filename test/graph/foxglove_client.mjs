// A Foxglove WebSocket client nobody here wrote (@foxglove/ws-protocol, with `ws` as the socket, and
// Foxglove's own ROS 2 decoders, @foxglove/rosmsg and @foxglove/rosmsg2-serialization, reading each
// message by the schema its channel advertised), for test/graph/test_live_view.py: node foxglove_client.mjs URL SECONDS COUNT TOPIC... connects
// (retrying until the server is up), subscribes to each TOPIC as soon as it is advertised, and prints
// one JSON line: every channel seen (topic, encoding, schema name and encoding) and, per TOPIC, the
// messages received and the first one, decoded (top-level fields: numbers and strings as they are,
// arrays as their length) and raw (base64). It ends once every TOPIC has COUNT messages and every
// topic of FOXGLOVE_EXPECT is advertised, or after SECONDS. Each URI of FOXGLOVE_ASSETS (comma
// separated) is asked for with fetchAsset, as Foxglove's web app asks for a URDF's package:// meshes;
// per URI the answer's status, its size and the sha256 of its bytes, or the error, are printed too.
import { createHash } from "node:crypto";
import { createRequire } from "node:module";

const require = createRequire(process.env.FOXGLOVE_CLIENT_DIR + "/package.json");
const { FoxgloveClient } = require("@foxglove/ws-protocol");
const WebSocket = require("ws");
const { parse } = require("@foxglove/rosmsg");
const { MessageReader } = require("@foxglove/rosmsg2-serialization");

const [url, secondsText, countText, ...topics] = process.argv.slice(2);
const deadline = Date.now() + Number(secondsText) * 1000;
const channels = new Map(); // id -> channel
const subscriptions = new Map(); // subscription id -> topic
const readers = new Map(); // subscription id -> the decoder its channel's schema gives
const received = Object.fromEntries(topics.map((t) => [t, { count: 0, first: "", decoded: null }]));
const assetUris = (process.env.FOXGLOVE_ASSETS || "").split(",").filter((u) => u);
const assets = {}; // uri -> { status, size, sha256 } or { status, error }
let connected = false;
let done = false;
let socket = null;

function finish(reason) {
  if (done) return;
  done = true;
  const seen = [...channels.values()].map((c) => ({
    topic: c.topic,
    encoding: c.encoding,
    schemaName: c.schemaName,
    schemaEncoding: c.schemaEncoding,
    schemaParses: c.parses, // by Foxglove's own .msg parser
  }));
  // Written in full before the exit (a pipe's writes are asynchronous), then a clean close, not a
  // reset the server would log.
  process.stdout.write(JSON.stringify({ reason, connected, channels: seen, received, assets }) + "\n", () => {
    if (socket && socket.readyState === WebSocket.OPEN) {
      socket.on("close", () => process.exit(0));
      socket.close();
      setTimeout(() => process.exit(0), 2000);
    } else process.exit(0);
  });
}

function summary(msg) {
  const out = {};
  for (const [key, value] of Object.entries(msg)) {
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") out[key] = value;
    else if (typeof value === "bigint") out[key] = Number(value);
    else if (Array.isArray(value) || ArrayBuffer.isView(value)) out[key] = { length: value.length };
    else out[key] = { fields: Object.keys(value ?? {}) };
  }
  return out;
}

// Topics that must also be advertised before the run counts as complete (FOXGLOVE_EXPECT, comma
// separated): the server discovers the graph's topics as their publishers appear.
const expected = (process.env.FOXGLOVE_EXPECT || "").split(",").filter((t) => t);

function complete() {
  const advertised = new Set([...channels.values()].map((c) => c.topic));
  return (
    topics.every((t) => received[t].count >= Number(countText)) &&
    expected.every((t) => advertised.has(t)) &&
    assetUris.every((u) => u in assets)
  );
}

function connect() {
  if (Date.now() > deadline) return finish("timeout");
  // The SDK's server speaks foxglove.sdk.v1; this client's default (foxglove.websocket.v1) is refused.
  const ws = new WebSocket(url, ["foxglove.sdk.v1"]);
  socket = ws;
  const client = new FoxgloveClient({ ws });
  client.on("error", () => {});
  client.on("open", () => {
    connected = true;
    assetUris.forEach((uri, i) => client.fetchAsset(uri, i));
  });
  client.on("fetchAssetResponse", (r) => {
    const uri = assetUris[r.requestId];
    if (r.status === 0) {
      const bytes = new Uint8Array(r.data.buffer, r.data.byteOffset, r.data.byteLength);
      assets[uri] = { status: "ok", size: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") };
    } else assets[uri] = { status: "error", error: r.error };
    if (complete()) finish("complete");
  });
  client.on("close", () => {
    if (!connected) setTimeout(connect, 250); // not up yet: try again
    else finish("closed");
  });
  client.on("advertise", (list) => {
    for (const c of list) {
      try {
        parse(c.schema, { ros2: true });
        c.parses = true;
      } catch {
        c.parses = false;
      }
      channels.set(c.id, c);
      if (topics.includes(c.topic)) {
        const id = client.subscribe(c.id);
        subscriptions.set(id, c.topic);
        readers.set(id, new MessageReader(parse(c.schema, { ros2: true })));
      }
    }
    if (complete()) finish("complete"); // the last expected channel may come after the last message
  });
  client.on("message", ({ subscriptionId, data }) => {
    const topic = subscriptions.get(subscriptionId);
    const r = received[topic];
    if (r.count === 0) {
      const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      r.first = Buffer.from(bytes).toString("base64");
      r.decoded = summary(readers.get(subscriptionId).readMessage(bytes));
    }
    r.count += 1;
    if (complete()) finish("complete");
  });
}

setTimeout(() => finish("timeout"), Number(secondsText) * 1000);
connect();
