// What a thread is called before (or without) the title the server gives it: the server names a
// thread from its first message's text, and not at all from a greeting or a message of
// attachments alone. Then the page names it from what it knows: the first message, else when it
// was made — never its raw id.

const KIND_NAMES = { image: "Image", audio: "Audio", video: "Video", file: "File", json: "Data", citation: "Source" };
const MAX = 60;

// A name from what the user first said: its first line, else its first attachment.
export function titleFromMessage(user) {
  if (!user) return null;
  const line = (user.content || "").trim().split("\n")[0].trim();
  if (line) return line.length > MAX ? `${line.slice(0, MAX - 1)}…` : line;
  const block = (user.blocks || [])[0];
  if (!block) return null;
  return block.filename || KIND_NAMES[block.type] || "Attachment";
}

// A thread nothing better names: when it was made.
export function untitled(thread) {
  if (!thread.createdAt) return "Untitled thread";
  const made = new Date(thread.createdAt).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
  return `Untitled · ${made}`;
}
