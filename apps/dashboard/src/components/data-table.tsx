import { type ReactNode, useLayoutEffect, useRef } from 'react';
import { TableScroll } from './table-scroll';

/**
 * A table of records: its name (a caption screen readers announce), one row of column headings, then
 * the rows. On a phone each row is a block of "heading: value" lines (the stylesheet reads each cell's
 * heading from its data-label); on a wider screen it scrolls sideways inside its card when wider than
 * the card, under `label`.
 */
export function DataTable({ label, name, columns, className, children }: { label: string; name: string; columns: readonly string[]; className?: string; children: ReactNode }) {
  const body = useRef<HTMLTableSectionElement>(null);
  // After every render: rows come and go with the data, and a cell spanning columns names the first.
  useLayoutEffect(() => {
    for (const row of Array.from(body.current?.rows ?? [])) {
      let column = 0;
      for (const cell of Array.from(row.cells)) {
        cell.dataset.label = columns[column] ?? '';
        column += cell.colSpan;
      }
    }
  });
  return (
    <TableScroll label={label}>
      <table className={['records', className].filter(Boolean).join(' ')}>
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
        <tbody ref={body}>{children}</tbody>
      </table>
    </TableScroll>
  );
}
