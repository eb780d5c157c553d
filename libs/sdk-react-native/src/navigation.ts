/** What the helper needs of a React Navigation container ref (createNavigationContainerRef / useNavigationContainerRef). */
export interface NavigationRefLike {
  getCurrentRoute(): { name: string } | undefined;
}

/**
 * Props for React Navigation's NavigationContainer that report each screen the user reaches:
 * `<NavigationContainer ref={ref} {...screenTracking(ref, Foresight.screen)}>`. A route shown again
 * (a re-render, params changing) is not a new screen.
 */
export function screenTracking(ref: NavigationRefLike, screen: (name: string) => void): { onReady(): void; onStateChange(): void } {
  let current: string | undefined;
  const report = () => {
    const name = ref.getCurrentRoute()?.name;
    if (name === undefined || name === current) return;
    current = name;
    screen(name);
  };
  return { onReady: report, onStateChange: report };
}
