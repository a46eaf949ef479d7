// The pi side of `cargo xtask interop`: pi's own SessionManager (npm
// `@mariozechner/pi-coding-agent`, 0.58.3 is the reference) opens or writes a session file and
// prints what it sees as one JSON object on stdout, for xtask to compare with clawloop.
//
// usage: node pi_context.mjs <package-dir> open <session.jsonl>
//        node pi_context.mjs <package-dir> write <session-dir> <cwd>
//        node pi_context.mjs <package-dir> append <session.jsonl>
//
// `open` reports what pi sees in a file; `write` has pi write a realistic session into a new
// file in <session-dir> and reports it; `append` opens a file, appends a turn as pi would and
// reports the result.
//
// <package-dir> is the installed package itself (the directory holding its package.json); it
// is imported by file URL because ESM resolves bare specifiers relative to this script, which
// does not live next to the node_modules it is run against.
//
// Exit status: 0 printed a report; 1 pi failed on the session (the message says how); 3 the
// package could not be loaded (xtask reports that as "not installed", not as a difference).

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [packageDir, command, ...args] = process.argv.slice(2);

let pi;
let version;
try {
	const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
	version = manifest.version;
	const entry = manifest.exports?.["."]?.import ?? manifest.main ?? "dist/index.js";
	pi = await import(pathToFileURL(join(packageDir, entry)).href);
	if (typeof pi.SessionManager?.open !== "function") {
		throw new Error("the package exports no SessionManager.open");
	}
} catch (error) {
	process.stderr.write(`cannot load @mariozechner/pi-coding-agent from ${packageDir}: ${error?.stack ?? error}\n`);
	process.exit(3);
}

/** What pi sees in an open session: everything xtask compares with clawloop. */
function describe(manager, path) {
	const entries = manager.getEntries();
	const labels = {};
	for (const entry of entries) {
		const label = manager.getLabel(entry.id);
		if (label !== undefined) labels[entry.id] = label;
	}
	return {
		piVersion: version,
		path,
		sessionId: manager.getSessionId(),
		header: manager.getHeader(),
		entryCount: entries.length,
		leafId: manager.getLeafId(),
		branch: manager.getBranch().map((e) => e.id),
		labels,
		sessionName: manager.getSessionName() ?? null,
		context: manager.buildSessionContext(),
		// The context with every entry as the leaf, through the exported function pi's own
		// tests use: a tree has as many contexts as entries, and all must agree.
		contextsAt: entries.map((e) => [e.id, pi.buildSessionContext(entries, e.id)]),
		lines: lineReport(path),
	};
}

/**
 * Whether each line of the file is what `JSON.stringify` writes for its own parse: pi rewrites
 * files that way (migrations) and appends its entries that way, so a line that is not is one
 * pi would write differently. Only the first few mismatches are kept; the count says the rest.
 */
function lineReport(path) {
	let text;
	try {
		text = readFileSync(path, "utf8");
	} catch {
		return { count: 0, mismatchCount: 0, mismatches: [] };
	}
	const lines = text.split("\n");
	if (lines.at(-1) === "") lines.pop();
	const mismatches = [];
	let mismatchCount = 0;
	lines.forEach((line, index) => {
		let again;
		try {
			again = JSON.stringify(JSON.parse(line));
		} catch (error) {
			again = `<not JSON: ${error.message}>`;
		}
		if (again !== line) {
			mismatchCount += 1;
			if (mismatches.length < 5) mismatches.push({ line: index + 1, file: line, pi: again });
		}
	});
	return { count: lines.length, mismatchCount, mismatches };
}

/** A usage block with realistic token counts and the costs pi's `calculateCost` gives them. */
function usage(input, output, cacheRead, cacheWrite, prices) {
	const cost = {
		input: (prices.input / 1e6) * input,
		output: (prices.output / 1e6) * output,
		cacheRead: (prices.cacheRead / 1e6) * cacheRead,
		cacheWrite: (prices.cacheWrite / 1e6) * cacheWrite,
	};
	cost.total = cost.input + cost.output + cost.cacheRead + cost.cacheWrite;
	return { input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite, cost };
}

const SONNET = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
const GPT = { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 };
// A 1×1 transparent PNG.
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/**
 * Writes a session the way pi's AgentSession would (pi-mono §3.3.8), with every entry type:
 * messages of each role with thinking, tool calls, images and costs; level and model changes;
 * a compaction; a branch left with a summary; a label; extension entries; a name. Objects are
 * built with the key order pi's providers and agent loop use, so the file is what pi writes.
 */
function write(dir, cwd) {
	// `create` as the SDK's callers use it: pi names the file `<time>_<uuid>.jsonl` in `dir`.
	const sm = pi.SessionManager.create(cwd, dir);
	let t = 1_767_225_600_000; // 2026-01-01T00:00:00Z; message timestamps are ms numbers
	const tick = () => (t += 1_000);
	sm.appendModelChange("anthropic", "claude-sonnet-4-5");
	sm.appendThinkingLevelChange("medium");
	const u1 = sm.appendMessage({
		role: "user",
		content: [
			{ type: "text", text: "What is in this picture? Then list the files — «ünïcödé» \u2028 ok" },
			{ type: "image", data: PNG, mimeType: "image/png" },
		],
		timestamp: tick(),
	});
	sm.appendMessage({
		role: "assistant",
		content: [
			{ type: "thinking", thinking: "A 1×1 image; then I need `ls`.", thinkingSignature: "EqQBCkYIBxgCKkA=" },
			{ type: "text", text: "It is a single transparent pixel. Listing files:" },
			{ type: "toolCall", id: "toolu_01A", name: "bash", arguments: { command: "ls -la", timeout: 30 } },
		],
		api: "anthropic-messages",
		provider: "anthropic",
		model: "claude-sonnet-4-5",
		usage: usage(1234, 87, 2048, 512, SONNET),
		stopReason: "toolUse",
		timestamp: tick(),
	});
	sm.appendMessage({
		role: "toolResult",
		toolCallId: "toolu_01A",
		toolName: "bash",
		content: [
			{ type: "text", text: "total 8\n-rw-r--r-- 1 u u 42 a.txt\n" },
			{ type: "image", data: PNG, mimeType: "image/png" },
		],
		details: { exitCode: 0, truncation: null },
		isError: false,
		timestamp: tick(),
	});
	sm.appendMessage({
		role: "assistant",
		content: [{ type: "text", text: "There is one file, `a.txt` (42 bytes)." }],
		api: "anthropic-messages",
		provider: "anthropic",
		model: "claude-sonnet-4-5",
		usage: usage(56, 19, 3282, 0, SONNET),
		stopReason: "stop",
		timestamp: tick(),
	});
	const bash = sm.appendMessage({
		role: "bashExecution",
		command: "cat a.txt",
		output: "hello\n",
		exitCode: 0,
		cancelled: false,
		truncated: false,
		timestamp: tick(),
	});
	sm.appendMessage({ role: "user", content: "Now summarize a.txt", timestamp: tick() });
	sm.appendThinkingLevelChange("high");
	sm.appendModelChange("openai", "gpt-5");
	sm.appendMessage({
		role: "assistant",
		content: [
			{ type: "thinking", thinking: "", thinkingSignature: '{"type":"reasoning","id":"rs_1","summary":[]}' },
			{ type: "text", text: "It says hello.", textSignature: '{"v":1,"id":"msg_1","phase":"final_answer"}' },
		],
		api: "openai-responses",
		provider: "openai",
		model: "gpt-5",
		usage: usage(3400, 120, 0, 0, GPT),
		stopReason: "stop",
		timestamp: tick(),
	});
	const compaction = sm.appendCompaction("The user asked about an image and a.txt; it says hello.", bash, 3520, { readFiles: ["a.txt"], modifiedFiles: [] }, false);
	sm.appendLabelChange(u1, "start");
	sm.appendMessage({ role: "user", content: [{ type: "text", text: "Try writing b.txt" }], timestamp: tick() });
	const aborted = sm.appendMessage({
		role: "assistant",
		content: [{ type: "toolCall", id: "call_1|fc_1", name: "write", arguments: { path: "b.txt", content: "x" }, partialJson: '{"path":"b.txt"' }],
		api: "openai-responses",
		provider: "openai",
		model: "gpt-5",
		usage: usage(0, 0, 0, 0, GPT),
		stopReason: "aborted",
		timestamp: tick(),
		errorMessage: "Request was aborted",
	});
	// Back to the compaction, leaving the aborted attempt behind with a summary of it, so the
	// leaf's context holds the compaction summary, the kept messages and the branch summary.
	sm.branchWithSummary(compaction, "Tried to write b.txt; aborted.", { readFiles: [], modifiedFiles: ["b.txt"] }, false);
	sm.appendCustomEntry("my-ext", { n: 1, aborted });
	sm.appendCustomMessageEntry("my-ext", [{ type: "text", text: "injected" }, { type: "image", data: PNG, mimeType: "image/png" }], true, { why: "test" });
	sm.appendMessage({ role: "user", content: "Thanks", timestamp: tick() });
	sm.appendMessage({
		role: "assistant",
		content: [{ type: "text", text: "You're welcome." }],
		api: "anthropic-messages",
		provider: "anthropic",
		model: "claude-sonnet-4-5",
		usage: usage(12, 6, 3300, 0, SONNET),
		stopReason: "stop",
		timestamp: tick(),
	});
	sm.appendSessionInfo("  Interop from pi  ");
	return describe(sm, sm.getSessionFile());
}

/** Opens a session and appends one turn the way pi's AgentSession records it. */
function append(path) {
	const sm = pi.SessionManager.open(path);
	const first = sm.getEntries()[0];
	const t = 1_767_240_000_000;
	sm.appendMessage({ role: "user", content: [{ type: "text", text: "pi here: anything else?" }], timestamp: t });
	sm.appendMessage({
		role: "assistant",
		content: [{ type: "text", text: "No, that is all." }],
		api: "anthropic-messages",
		provider: "anthropic",
		model: "claude-sonnet-4-5",
		usage: usage(9, 7, 3500, 0, SONNET),
		stopReason: "stop",
		timestamp: t + 1_000,
	});
	if (first) sm.appendLabelChange(first.id, "from pi");
	return describe(sm, path);
}

try {
	let report;
	if (command === "open" && args.length === 1) {
		report = describe(pi.SessionManager.open(args[0]), args[0]);
	} else if (command === "append" && args.length === 1) {
		report = append(args[0]);
	} else if (command === "write" && args.length === 2) {
		report = write(args[0], args[1]);
	} else {
		process.stderr.write("usage: node pi_context.mjs <package-dir> open <session.jsonl> | write <session-dir> <cwd> | append <session.jsonl>\n");
		process.exit(2);
	}
	process.stdout.write(`${JSON.stringify(report)}\n`);
} catch (error) {
	process.stderr.write(`pi failed: ${error?.stack ?? error}\n`);
	process.exit(1);
}
