import { ToastContainer, toast, type ToastOptions } from 'react-toastify';

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
