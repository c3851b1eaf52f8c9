/** mnemo's mark and name; the mark is decoration, the name is the text. */
export function Logo() {
  return (
    <span className="logo">
      <svg viewBox="0 0 32 32" width="28" height="28" aria-hidden="true" focusable="false">
        <rect width="32" height="32" rx="7" className="logo-tile" />
        <path
          d="M8 22V11l5 6 3-4 3 4 5-6v11"
          fill="none"
          className="logo-stroke"
          strokeWidth="2.6"
          strokeLinecap="round"
          strokeLinejoin="round"
        />
      </svg>
      <span className="logo-name">
        mnemo <span className="logo-product">studio</span>
      </span>
    </span>
  );
}
