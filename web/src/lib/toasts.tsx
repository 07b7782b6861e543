// The unstyled build and the stylesheet as a file: the default build injects
// its CSS as an inline <style> element, which the portal's Content-Security-Policy
// (style-src 'self', server/src/http/security-headers.ts) refuses.
import { ToastContainer, toast, type ToastOptions } from 'react-toastify/unstyled';
import 'react-toastify/ReactToastify.css';

/** SPEC.md section 9: public pages toast top-right for 5000 ms, drag to dismiss at 80%, Alt+T to focus. */
export function Toasts() {
  return <ToastContainer position="top-right" autoClose={5000} draggable draggablePercent={80} />;
}

/** The dashboard's toasts close sooner (SPEC.md section 9). */
export const DASHBOARD_TOAST: ToastOptions = { autoClose: 3000 };

export const notify = {
  success: (message: string, options?: ToastOptions) => toast.success(message, options),
  error: (message: string, options?: ToastOptions) => toast.error(message, options),
};
