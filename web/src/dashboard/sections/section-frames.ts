import type { SectionId } from '../dashboard-sections.ts';

/**
 * The columns SPEC.md section 2 gives each table, for the sections whose
 * screens come with the operations work: until then they show their title and
 * an empty table frame. `adminOnly` columns are hidden from staff who view only.
 */
export const FRAME_COLUMNS: Partial<Record<SectionId, ReadonlyArray<{ header: string; adminOnly?: boolean }>>> = {
};
