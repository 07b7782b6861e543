import type { Ref } from 'react';
import { MAX_DATE, MIN_DATE, type DateTimeValue } from './data-table/date-range.ts';
import { describedBy, FieldError } from './form-field.tsx';

/** docs/behaviour.md#limits-and-constants: the time picker steps by 30 minutes. */
export const TIME_STEP_MINUTES = 30;

const pad = (n: number) => String(n).padStart(2, '0');

/** '00:00', '00:30', ... '23:30'. */
export const TIME_OPTIONS: readonly string[] = Array.from({ length: (24 * 60) / TIME_STEP_MINUTES }, (_, i) => {
  const minutes = i * TIME_STEP_MINUTES;
  return `${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
});

export interface DateTimeFieldProps {
  id: string;
  label: string;
  value: DateTimeValue;
  onChange: (value: DateTimeValue) => void;
  /** The earliest date the picker offers (yyyy-MM-dd); never before 1900. */
  minDate?: string;
  /** What the empty time means, e.g. 'Start of day (00:00:00)'. */
  wholeDayLabel: string;
  error: string | undefined;
  /** The date input, for the form to focus. */
  inputRef?: Ref<HTMLInputElement>;
}

/**
 * A date and a time of day (docs/behaviour.md#discount-management): the date picker spans
 * the years 1900-2100 and starts no earlier than `minDate`; the time is
 * picked in 30-minute steps, or left as the whole day. A time already off
 * those steps (set through the API) stays on offer, so editing keeps it.
 */
export function DateTimeField({ id, label, value, onChange, minDate, wholeDayLabel, error, inputRef }: DateTimeFieldProps) {
  const times = value.time !== '' && !TIME_OPTIONS.includes(value.time) ? [...TIME_OPTIONS, value.time].sort() : TIME_OPTIONS;
  const min = minDate && minDate > MIN_DATE ? minDate : MIN_DATE;
  return (
    <div className="form-field date-time">
      <label htmlFor={id}>{label}</label>
      <label className="time-label" htmlFor={`${id}-time`}>
        {label} time (UTC)
      </label>
      <input
        ref={inputRef}
        type="date"
        min={min}
        max={MAX_DATE}
        value={value.date}
        onChange={(e) => onChange({ ...value, date: e.target.value })}
        {...describedBy(id, error)}
      />
      <select id={`${id}-time`} value={value.time} onChange={(e) => onChange({ ...value, time: e.target.value })}>
        <option value="">{wholeDayLabel}</option>
        {times.map((time) => (
          <option key={time} value={time}>
            {time}
          </option>
        ))}
      </select>
      <FieldError id={id} error={error} />
    </div>
  );
}
