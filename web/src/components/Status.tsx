/** One polite live region per page: what the last action did, read out by screen readers. */
export function StatusLine({ message }: { message: string }) {
  return (
    <p class="status-line" role="status" aria-live="polite">
      {message}
    </p>
  );
}
