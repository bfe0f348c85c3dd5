// Checks OTLP/JSON, one ExportTraceServiceRequest a line, against
// OpenTelemetry's own definitions: the messages protobufjs generated from
// opentelemetry-proto, as npm's @opentelemetry/otlp-proto-exporter-base
// carries them (scripts/fetch-otlp-proto.sh). Each line is read into the
// message (fromObject), verified (verify), and written back (toObject): a
// key the definitions do not have, or a value of the wrong type, does not
// come back, and is reported with its line and path. OTLP/JSON's own rules
// are checked on top: trace and span ids as hex of 16 and 8 bytes, enums
// as integers.
//
//   node tests/otlp-check.js ROOT.js FILE
//
// Prints one JSON object: {"lines":N,"spans":N,"errors":[...]}; exits 1 on
// any error.
//
// SPDX-License-Identifier: MIT
'use strict';
const fs = require('fs');

const [rootPath, file] = process.argv.slice(2);
const root = require(rootPath);
const Request = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
const errors = [];
let spans = 0;

// OTLP/JSON's ids are hex; protobufjs reads bytes as base64: convert, checking the hex.
function ids(span, where) {
  for (const [key, len] of [['traceId', 32], ['spanId', 16], ['parentSpanId', 16]]) {
    if (span[key] === undefined) continue;
    if (typeof span[key] !== 'string' || !new RegExp(`^[0-9a-f]{${len}}$`).test(span[key]))
      errors.push(`${where}.${key}: not ${len} hex digits: ${JSON.stringify(span[key])}`);
    else if (/^0+$/.test(span[key]))
      errors.push(`${where}.${key}: all zero, which OTLP calls invalid`);
    span[key] = Buffer.from(span[key], 'hex').toString('base64');
  }
  if (span.kind !== undefined && typeof span.kind !== 'number')
    errors.push(`${where}.kind: OTLP/JSON wants enums as integers: ${JSON.stringify(span.kind)}`);
}

// Where a and b differ (b: what came back through the definitions), as paths.
function differences(a, b, where, out) {
  if (a !== null && typeof a === 'object') {
    if (b === null || typeof b !== 'object') {
      out.push(`${where}: ${JSON.stringify(a).slice(0, 80)} is not a message the definitions know`);
      return;
    }
    for (const k of Object.keys(a))
      if (!(k in b)) out.push(`${where}.${k}: no such field in opentelemetry-proto`);
      else differences(a[k], b[k], `${where}.${k}`, out);
    return;
  }
  if (String(a) !== String(b))
    out.push(`${where}: ${JSON.stringify(a)} reads back as ${JSON.stringify(b)}`);
}

const lines = fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.length);
lines.forEach((line, i) => {
  const where = `line ${i + 1}`;
  let obj;
  try {
    obj = JSON.parse(line);
  } catch (e) {
    errors.push(`${where}: not JSON: ${e.message}`);
    return;
  }
  for (const [r, rs] of (obj.resourceSpans || []).entries())
    for (const [s, ss] of (rs.scopeSpans || []).entries())
      for (const [n, span] of (ss.spans || []).entries()) {
        spans++;
        ids(span, `${where}.resourceSpans[${r}].scopeSpans[${s}].spans[${n}]`);
      }
  const msg = Request.fromObject(obj);
  const why = Request.verify(msg);
  if (why) errors.push(`${where}: ${why}`);
  const back = Request.toObject(msg, { longs: String, enums: Number, bytes: String, arrays: true });
  differences(obj, back, where, errors);
});
console.log(JSON.stringify({ lines: lines.length, spans, errors: errors.slice(0, 20) }));
process.exit(errors.length ? 1 : 0);
