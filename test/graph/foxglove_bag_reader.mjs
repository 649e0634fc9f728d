// How Foxglove opens a bag, with Foxglove's own readers (nobody here wrote them): @mcap/core's indexed
// reader over @mcap/nodejs' file handle, zstd chunks through @foxglove/wasm-zstd, each channel's
// schema parsed by @foxglove/rosmsg (ros2) and every message decoded by
// @foxglove/rosmsg2-serialization's MessageReader. For test/graph/test_foxglove_bags.py:
//   node foxglove_bag_reader.mjs FILE.mcap...
// prints one JSON line: per file, the messages per topic and the decode failures; over all files,
// the /robot_description text (the last one), every TF frame (parent and child) of /tf and
// /tf_static, the marker namespaces and frames of /scene/markers and /scene/robot (and the frames
// the robot's markers are locked to), and the first decode errors.
import { createRequire } from "node:module";
import { open } from "node:fs/promises";

const require = createRequire(process.env.FOXGLOVE_READERS_DIR + "/package.json");
const { McapIndexedReader } = require("@mcap/core");
const { FileHandleReadable } = require("@mcap/nodejs");
const { parse } = require("@foxglove/rosmsg");
const { MessageReader } = require("@foxglove/rosmsg2-serialization");
const zstd = require("@foxglove/wasm-zstd");

await zstd.isLoaded;
const decompressHandlers = { zstd: (buf, size) => zstd.decompress(buf, Number(size)) };
const out = { files: {}, robot_description: "", tf_frames: [], tf_static_frames: [], tf_parents: [],
  marker_ns: [], marker_frames: [], robot_locked_frames: [], errors: [] };
const tf = new Set(), tfStatic = new Set(), parents = new Set(), ns = new Set(), frames = new Set();
const lockedFrames = new Set();

for (const path of process.argv.slice(2)) {
  const handle = await open(path, "r");
  const reader = await McapIndexedReader.Initialize({ readable: new FileHandleReadable(handle), decompressHandlers });
  const decoders = new Map();
  for (const [id, channel] of reader.channelsById) {
    const schema = reader.schemasById.get(channel.schemaId);
    const text = new TextDecoder().decode(schema.data);
    decoders.set(id, { topic: channel.topic, reader: new MessageReader(parse(text, { ros2: true })) });
  }
  const counts = {}, failed = {};
  for await (const m of reader.readMessages()) {
    const d = decoders.get(m.channelId);
    try {
      const msg = d.reader.readMessage(m.data);
      counts[d.topic] = (counts[d.topic] ?? 0) + 1;
      if (d.topic === "/robot_description") out.robot_description = msg.data;
      if (d.topic === "/tf" || d.topic === "/tf_static") {
        for (const t of msg.transforms) {
          (d.topic === "/tf" ? tf : tfStatic).add(t.child_frame_id);
          parents.add(t.header.frame_id);
        }
      }
      if (d.topic === "/scene/markers" || d.topic === "/scene/robot") {
        for (const mk of msg.markers) {
          ns.add(mk.ns);
          if (mk.header.frame_id) frames.add(mk.header.frame_id);
          if (d.topic === "/scene/robot" && mk.frame_locked) lockedFrames.add(mk.header.frame_id);
        }
      }
    } catch (err) {
      failed[d.topic] = (failed[d.topic] ?? 0) + 1;
      if (out.errors.length < 5) out.errors.push(`${path} ${d.topic}: ${err}`);
    }
  }
  await handle.close();
  out.files[path] = { counts, failed };
}
out.tf_frames = [...tf].sort();
out.tf_static_frames = [...tfStatic].sort();
out.tf_parents = [...parents].sort();
out.marker_ns = [...ns].sort();
out.marker_frames = [...frames].sort();
out.robot_locked_frames = [...lockedFrames].sort();
console.log(JSON.stringify(out));
