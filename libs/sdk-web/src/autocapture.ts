/** Where autocapture hands what it saw. */
export interface CaptureSink {
  record(event: string, properties: Record<string, unknown>): void;
  /** The address changed (single-page-app navigation). */
  navigated(): void;
}

/** Elements a click is attributed to, innermost first; anything else counts as its own target. */
const INTERACTIVE = 'a[href],button,input,select,textarea,summary,label,[role],[onclick],[tabindex]';
const IMPLICIT_ROLES: Record<string, string> = { A: 'link', BUTTON: 'button', SELECT: 'combobox', SUMMARY: 'button', LABEL: 'label' };
const INPUT_ROLES: Record<string, string> = { checkbox: 'checkbox', radio: 'radio', range: 'slider', submit: 'button', button: 'button', reset: 'button', image: 'button' };
const NAVIGATION_EVENT = 'foresight:navigate';
/** Scroll depth is measured at most this often while the page scrolls, not on every frame. */
const SCROLL_MEASURE_INTERVAL_MS = 250;
const SCROLL_STEPS = 4;

/**
 * Clicks and taps (the element's role and text length, never its text or a form value), scroll
 * depth (each new quarter of the page reached), single-page-app navigation and hesitation (how long
 * the pointer rested on an element, or for touch the pause since the last scroll, before the click).
 * No keystrokes, no form values, no screenshots. Returns the function that stops it all.
 */
export function startAutocapture(sink: CaptureSink): () => void {
  const stops: Array<() => void> = [];
  const on = (target: EventTarget, type: string, handler: (event: Event) => void): void => {
    // Capture phase: a page that stops propagation must not hide its clicks.
    target.addEventListener(type, handler, { capture: true, passive: true });
    stops.push(() => target.removeEventListener(type, handler, { capture: true }));
  };

  let hovered: Element | undefined;
  let hoveredSince = 0;
  let lastScrollAt: number | undefined;
  on(document, 'pointerover', (event) => {
    const element = attributedElement(event.target);
    if (element === hovered) return;
    hovered = element;
    hoveredSince = Date.now();
  });
  on(document, 'click', (event) => {
    const element = attributedElement(event.target);
    if (!element) return;
    const touch = (event as PointerEvent).pointerType === 'touch';
    const restedSince = touch ? lastScrollAt : element === hovered ? hoveredSince : undefined;
    sink.record(touch ? 'tap' : 'click', {
      role: roleOf(element),
      ...(isFormOrEditable(element) ? {} : { textLength: (element.textContent ?? '').trim().length }),
      ...(restedSince === undefined ? {} : { hesitationMs: Date.now() - restedSince }),
    });
  });

  let deepestStep = 0;
  let measuring = false;
  on(window, 'scroll', (event) => {
    // Capturing on window also hears scrollable boxes inside the page; only the page itself counts.
    if (event.target !== document) return;
    lastScrollAt = Date.now();
    if (measuring) return;
    measuring = true;
    setTimeout(() => {
      measuring = false;
      const depth = scrollDepth();
      const step = Math.floor(depth * SCROLL_STEPS);
      if (step <= deepestStep) return;
      deepestStep = step;
      sink.record('scroll', { depth: Math.round(depth * 100) / 100 });
    }, SCROLL_MEASURE_INTERVAL_MS);
  });

  let path = location.pathname;
  const onNavigation = (): void => {
    if (location.pathname === path) return;
    path = location.pathname;
    deepestStep = 0;
    lastScrollAt = undefined;
    sink.navigated();
  };
  observeHistory();
  on(window, NAVIGATION_EVENT, onNavigation);
  on(window, 'popstate', onNavigation);

  return () => stops.splice(0).forEach((stop) => stop());
}

/**
 * history.pushState and replaceState fire no event; they are wrapped once, for good, to announce
 * themselves. Unwrapping later could undo the wrappers of a library that came after us.
 */
let historyObserved = false;
function observeHistory(): void {
  if (historyObserved) return;
  historyObserved = true;
  for (const method of ['pushState', 'replaceState'] as const) {
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the patched call's own `this`
    const original = history[method];
    history[method] = function (this: History, ...args: Parameters<History['pushState']>): void {
      original.apply(this, args);
      window.dispatchEvent(new Event(NAVIGATION_EVENT));
    };
  }
}

function attributedElement(target: EventTarget | null): Element | undefined {
  if (!(target instanceof Element)) return undefined;
  return target.closest(INTERACTIVE) ?? target;
}

function roleOf(element: Element): string {
  const explicit = element.getAttribute('role');
  if (explicit) return explicit;
  if (element instanceof HTMLInputElement) return INPUT_ROLES[element.type] ?? 'textbox';
  if (element instanceof HTMLTextAreaElement) return 'textbox';
  return IMPLICIT_ROLES[element.tagName] ?? 'generic';
}

/** Text of a form field or an editable region is what the visitor typed: not even its length is taken. */
function isFormOrEditable(element: Element): boolean {
  return (
    element instanceof HTMLInputElement ||
    element instanceof HTMLTextAreaElement ||
    element instanceof HTMLSelectElement ||
    (element instanceof HTMLElement && element.isContentEditable)
  );
}

/** How far down the page the bottom of the viewport is, 0 to 1. */
function scrollDepth(): number {
  const height = document.documentElement.scrollHeight;
  return height > 0 ? Math.min(1, (window.scrollY + window.innerHeight) / height) : 1;
}
