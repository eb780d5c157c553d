import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { api } from '../../api/client';
import type { LiveEvent } from '../../api/types';
import { DataTable } from '../../components/data-table';
import { when } from '../../components/format';
import { Empty, ErrorState, Loading } from '../../components/states';
import { IngestionPanel } from '../overview/ingestion-panel';

const POLL_MS = 2_000;
/** Events kept on screen; older ones scroll away. */
const SHOWN = 200;

/** The organization's events as they land (polled with the feed's cursor), with the counts per sending library. */
export function LivePage() {
  return (
    <>
      <h1>Live events</h1>
      <p className="muted">Events appear about two seconds after they arrive. Send one from an SDK and watch it land here.</p>
      <IngestionPanel bucket="hour" />
      <LiveFeed />
    </>
  );
}

function LiveFeed() {
  const queries = useQueryClient();
  const [events, setEvents] = useState<LiveEvent[]>([]);
  const cursor = useRef<string | undefined>(undefined);
  const feed = useQuery({
    queryKey: ['live-events'],
    queryFn: async () => {
      const page = await api.events.live({ query: { after: cursor.current, limit: 50 } });
      cursor.current = page.cursor ?? undefined;
      return page;
    },
    refetchInterval: POLL_MS,
    gcTime: 0,
  });
  useEffect(() => {
    if (feed.data && feed.data.events.length > 0) {
      setEvents((shown) => [...feed.data.events, ...shown].slice(0, SHOWN));
      // New arrivals move the per-library counts too.
      void queries.invalidateQueries({ queryKey: ['ingestion'] });
    }
  }, [feed.data, queries]);
  return (
    <section className="panel" aria-labelledby="live-heading">
      <h2 id="live-heading">Latest events</h2>
      {feed.isPending && <Loading what="events" />}
      {feed.isError && <ErrorState error={feed.error} />}
      {feed.isSuccess && events.length === 0 && (
        <Empty title="Waiting for the first event">
          <p>Nothing has arrived yet. This list updates by itself every two seconds.</p>
        </Empty>
      )}
      {events.length > 0 && (
        <DataTable label="Latest events" name="Latest events, newest first" columns={['Received', 'Event', 'User', 'Library', 'Properties']}>
          {events.map((event) => (
            <tr key={event.messageId}>
              <td>{when(event.receivedAt)}</td>
              <th scope="row">{event.event}</th>
              <td>{event.userId ?? `anonymous ${event.anonymousId ?? ''}`}</td>
              <td>{event.library ?? 'direct API call'}</td>
              <td>{event.properties === undefined ? <span className="muted">admin only</span> : <code>{JSON.stringify(event.properties ?? {})}</code>}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}
