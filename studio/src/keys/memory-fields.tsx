import { useId } from 'react';
import { isMemoryMode, type KeyMemory, MEMORY_CHOICES, RIGHTS_CHOICES } from './key-memory.ts';

/**
 * A key's two memory settings, as the create and edit dialogs ask for them. Nothing here stops
 * a setting above the rights: the API says why it refuses one (memory cannot exceed its rights),
 * and the dialog shows that.
 */
export function MemoryFields(props: { value: KeyMemory; onChange: (value: KeyMemory) => void }) {
  const { value, onChange } = props;
  const ids = { memory: useId(), memoryHint: useId(), rights: useId(), rightsHint: useId() };
  return (
    <>
      <div className="field">
        <label htmlFor={ids.memory}>Memory in chat calls</label>
        <select
          id={ids.memory}
          value={value.memory}
          onChange={(event) => {
            if (isMemoryMode(event.target.value))
              onChange({ ...value, memory: event.target.value });
          }}
          aria-describedby={ids.memoryHint}
        >
          {MEMORY_CHOICES.map((choice) => (
            <option key={choice.value} value={choice.value}>
              {choice.label}
            </option>
          ))}
        </select>
        <span id={ids.memoryHint} className="field-hint">
          What a <code>/v1</code> call with this key does with its owner’s memories when the call
          itself does not say.
        </span>
      </div>
      <div className="field">
        <label htmlFor={ids.rights}>Memory rights</label>
        <select
          id={ids.rights}
          value={value.memoryAccess}
          onChange={(event) => {
            if (isMemoryMode(event.target.value)) {
              onChange({ ...value, memoryAccess: event.target.value });
            }
          }}
          aria-describedby={ids.rightsHint}
        >
          {RIGHTS_CHOICES.map((choice) => (
            <option key={choice.value} value={choice.value}>
              {choice.label}
            </option>
          ))}
        </select>
        <span id={ids.rightsHint} className="field-hint">
          The most any call with this key may do with memories, whatever the call asks for.
        </span>
      </div>
    </>
  );
}
