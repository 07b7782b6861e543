/**
 * docs/architecture.md, convention 8: one dialog state per screen. The modal that serves
 * add, edit and delete (docs/behaviour.md#dialogs) reads its mode and, for edit
 * and delete, the row it acts on.
 */
export type DialogMode = 'add' | 'edit' | 'delete';

export type DialogState<Row> = { mode: 'add' } | { mode: 'edit'; row: Row } | { mode: 'delete'; row: Row } | null;
