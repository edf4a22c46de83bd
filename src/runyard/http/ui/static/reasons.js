// Why a run did not complete, in words: run-finish's `reason` codes (docs/protocol.md,
// "run-finish") as a person reads them. A reason not listed here is already words (a failure's
// message) and is shown as it came.

const REASONS = {
  user_cancelled: "Cancelled",
  approval_expired: "The question waited too long and expired",
  timeout: "The run took too long (its time limit)",
  max_output_tokens: "The answer reached its length limit",
  max_iterations: "The agent reached its limit of steps",
  "server restarted": "The server restarted and the run could not go on",
  "database unavailable": "The database was unavailable",
};

export function reasonText(reason) {
  return REASONS[reason] || reason;
}
