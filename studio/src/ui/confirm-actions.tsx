/**
 * The footer of a dialog that asks before something irreversible: Cancel, and the act itself
 * in the danger style, which says it is under way while the request runs.
 */
export function ConfirmActions(props: {
  /** The act, as the button says it: "Remove member", "Revoke". */
  label: string;
  /** The same while under way: "Removing…". */
  busyLabel: string;
  busy: boolean;
  /** The act cannot be asked for yet (what it would do is still being read). */
  disabled?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <div className="dialog-actions">
      <button type="button" className="button" onClick={props.onCancel} disabled={props.busy}>
        Cancel
      </button>
      <button
        type="button"
        className="button danger"
        disabled={props.busy || props.disabled === true}
        onClick={props.onConfirm}
      >
        {props.busy ? props.busyLabel : props.label}
      </button>
    </div>
  );
}
