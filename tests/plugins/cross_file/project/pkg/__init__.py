from .utils import select_device, amp_context
