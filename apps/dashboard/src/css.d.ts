// Vite bundles imported style sheets into the built CSS file.
declare module '*.css';
