import { useEffect, useRef, useState } from 'preact/hooks';

interface Request {
  title: string;
  body: string;
  confirmLabel: string;
  resolve: (ok: boolean) => void;
}

let show: ((request: Request) => void) | undefined;

/** Asks before a destructive action, in a modal <dialog> (focus stays inside; Escape cancels). */
export function confirmAction(title: string, body: string, confirmLabel: string): Promise<boolean> {
  return new Promise((resolve) => (show ? show({ title, body, confirmLabel, resolve }) : resolve(window.confirm(`${title}\n\n${body}`))));
}

/** Mounted once by the shell. */
export function ConfirmHost() {
  const [request, setRequest] = useState<Request>();
  const dialog = useRef<HTMLDialogElement>(null);
  const opener = useRef<Element | null>(null);
  useEffect(() => {
    show = (next) => {
      opener.current = document.activeElement;
      setRequest(next);
    };
    return () => void (show = undefined);
  }, []);
  useEffect(() => {
    if (request && dialog.current && !dialog.current.open) dialog.current.showModal();
  }, [request]);
  const close = (ok: boolean) => {
    request?.resolve(ok);
    setRequest(undefined);
    dialog.current?.close();
    if (opener.current instanceof HTMLElement && opener.current.isConnected) opener.current.focus();
  };
  return (
    <dialog ref={dialog} class="dialog" aria-labelledby="confirm-title" aria-describedby="confirm-body" onCancel={(event) => (event.preventDefault(), close(false))}>
      {request && (
        <form method="dialog" onSubmit={(event) => (event.preventDefault(), close(true))}>
          <h2 id="confirm-title">{request.title}</h2>
          <p id="confirm-body">{request.body}</p>
          <div class="row end">
            <button type="button" class="button" onClick={() => close(false)} autoFocus>
              Cancel
            </button>
            <button type="submit" class="button danger">
              {request.confirmLabel}
            </button>
          </div>
        </form>
      )}
    </dialog>
  );
}
