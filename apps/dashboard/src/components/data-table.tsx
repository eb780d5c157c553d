import type { ReactNode } from 'react';
import { TableScroll } from './table-scroll';

/**
 * A table of records: its name (a caption screen readers announce), one row of column headings, then
 * the rows; it scrolls sideways inside its card when wider than the screen, under `label`.
 */
export function DataTable({ label, name, columns, className, children }: { label: string; name: string; columns: readonly string[]; className?: string; children: ReactNode }) {
  return (
    <TableScroll label={label}>
      <table className={className}>
        <caption className="visually-hidden">{name}</caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col">
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </TableScroll>
  );
}
