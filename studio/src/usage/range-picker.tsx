import { type FormEvent, useId, useState } from 'react';
import {
  customRangeProblem,
  type DayRange,
  PRESETS,
  type Preset,
  type RangeChoice,
} from './usage-range.ts';

/**
 * The days the page shows: a preset or two days of one's own. Choosing "Custom" keeps the days
 * shown and opens the two fields; new days apply with the Apply button, so that typing a date
 * does not load a report per keystroke.
 */
export function RangePicker(props: { range: DayRange; onChange: (choice: RangeChoice) => void }) {
  const { range, onChange } = props;
  const name = useId();
  // The URL changes in a transition: the choice shows at once, and follows the URL (the back
  // button) whenever that changes.
  const shown = range.preset ?? 'custom';
  const [picked, setPicked] = useState<Preset | 'custom'>(shown);
  const [seen, setSeen] = useState(shown);
  if (seen !== shown) {
    setSeen(shown);
    setPicked(shown);
  }
  const choose = (choice: RangeChoice) => {
    setPicked('preset' in choice ? choice.preset : 'custom');
    onChange(choice);
  };
  return (
    <div className="usage-range">
      <fieldset className="segmented">
        <legend className="visually-hidden">Days shown</legend>
        {PRESETS.map((preset) => (
          <Choice
            key={preset}
            name={name}
            label={`${preset} days`}
            checked={picked === preset}
            onChoose={() => choose({ preset })}
          />
        ))}
        <Choice
          name={name}
          label="Custom"
          checked={picked === 'custom'}
          onChoose={() => choose({ first: range.first, last: range.last })}
        />
      </fieldset>
      {range.preset === undefined ? (
        <CustomRange key={`${range.first}/${range.last}`} range={range} onChange={onChange} />
      ) : null}
    </div>
  );
}

function Choice(props: { name: string; label: string; checked: boolean; onChoose: () => void }) {
  return (
    <label className="segment">
      <input type="radio" name={props.name} checked={props.checked} onChange={props.onChoose} />
      <span>{props.label}</span>
    </label>
  );
}

function CustomRange(props: { range: DayRange; onChange: (choice: RangeChoice) => void }) {
  const [first, setFirst] = useState(props.range.first);
  const [last, setLast] = useState(props.range.last);
  const [problem, setProblem] = useState<string>();
  const fromId = useId();
  const toId = useId();
  const problemId = useId();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found = customRangeProblem(first, last);
    setProblem(found);
    if (found === undefined) props.onChange({ first, last });
  };
  // The field the problem is about: the first day's when it is missing, else the last day's.
  const firstWrong = problem?.includes('first day of') === true;
  const invalid = (wrong: boolean) =>
    wrong ? { 'aria-invalid': true, 'aria-describedby': problemId } : {};

  return (
    <form className="usage-custom" onSubmit={submit} noValidate>
      <div className="field">
        <label htmlFor={fromId}>From</label>
        <input
          id={fromId}
          type="date"
          value={first}
          onChange={(event) => setFirst(event.target.value)}
          {...invalid(firstWrong)}
        />
      </div>
      <div className="field">
        <label htmlFor={toId}>To</label>
        <input
          id={toId}
          type="date"
          value={last}
          min={isoOrUndefined(first)}
          onChange={(event) => setLast(event.target.value)}
          {...invalid(problem !== undefined && !firstWrong)}
        />
      </div>
      <button type="submit" className="button">
        Apply
      </button>
      {problem ? (
        <p id={problemId} className="field-error usage-custom-error" role="alert">
          {problem}
        </p>
      ) : null}
    </form>
  );
}

const isoOrUndefined = (day: string) => (day === '' ? undefined : day);
