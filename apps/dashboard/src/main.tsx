import './styles.css';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ApiError } from './api/client';
import { App } from './app';

const queries = new QueryClient({
  defaultOptions: {
    // A refused token or a missing model does not get better by asking again.
    queries: { retry: (failures, error) => failures < 2 && !(error instanceof ApiError && error.status >= 400 && error.status < 500), refetchOnWindowFocus: false, staleTime: 10_000 },
  },
});

createRoot(document.getElementById('root') as HTMLElement).render(
  <StrictMode>
    <QueryClientProvider client={queries}>
      <App />
    </QueryClientProvider>
  </StrictMode>,
);
