/** The outcome of an action: errors are announced at once (alert), successes politely (status). */
export function Notice({ error, done }: { error?: string | undefined; done?: string | undefined }) {
  return (
    <>
      <div role="alert" class={error ? 'notice notice-error' : 'visually-empty'}>
        {error}
      </div>
      <div role="status" class={done ? 'notice notice-done' : 'visually-empty'}>
        {done}
      </div>
    </>
  );
}
